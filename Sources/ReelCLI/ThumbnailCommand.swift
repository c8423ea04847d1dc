import ArgumentParser
import Farm
import Foundation
import RenderEngine
import SessionKit

struct Thumbnail: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A thumbnail of a segment (requestThumbnail): the oriented picture fit or fill into a box of at most 400x400.")

    @OptionGroup var still: StillOptions

    @Option(help: "The segment (0 = the first). Optional with --invalidate.")
    var segment: Int?

    @Option(help: "Seconds into the segment's whole media (default: its trimStartTime).")
    var time: Double?

    @Option(help: "Bounding size WxH, at most 400x400.")
    var size: String?

    @Option(help: "Seconds either side of --time within which the nearest keyframe may be shown (faster); default: the exact frame.")
    var tolerance: Double?

    @Option(help: "fit: inside the box; fill: covers the box (content is not clipped).")
    var mode: ContentMode = .fit

    @Option(help: "A filter: a built-in type name (at full strength) or a filter's JSON.")
    var filter: String?

    @Option(name: .shortAndLong, help: "Output JPEG (or PNG for .png).")
    var output: String?

    @Flag(help: "Clear the cached pictures of the segment (of the whole session without --segment).")
    var invalidate = false

    func validate() throws {
        if invalidate { return }
        guard segment != nil else { throw ValidationError("--segment is required") }
        guard let size else { throw ValidationError("--size WxH is required") }
        let box = try parseSize(size, option: "--size")
        guard box.width >= 1, box.height >= 1, box.width <= 400, box.height <= 400 else {
            throw ValidationError("--size \(size): a thumbnail's bounding size is 1x1 … 400x400")
        }
        guard output != nil else { throw ValidationError("-o OUT.jpg is required") }
        _ = try parseFilter(filter)
    }

    func run() throws {
        if invalidate { return try invalidateEntries() }
        guard let segment, let size, let output else { return }
        let loaded = try still.loadStill(segment: segment, filters: try parseFilter(filter))
        let request = StillRequest(kind: .thumbnail, segment: 0, time: try time.map(sessionTime), box: try parseSize(size, option: "--size"),
                                   mode: mode, png: output.lowercased().hasSuffix(".png"), tolerance: try toleranceTime(tolerance))
        try still.makeOne(loaded, request, to: output)
    }

    private func invalidateEntries() throws {
        let document: Session
        do {
            document = try SessionDocument.decode(try Data(contentsOf: URL(fileURLWithPath: still.session.session)))
        } catch {
            printError("error: \(still.session.session): \(error)")
            throw Reported(code: ExitStatus.invalidInput)
        }
        let segments = document.video?.videoSegments ?? []
        if let segment, !segments.indices.contains(segment) {
            printError("error: --segment \(segment): the session has \(segments.count) segment(s)")
            throw Reported(code: ExitStatus.invalidInput)
        }
        let chosen = segment.map { [$0] } ?? Array(segments.indices)
        var ids: Set<String> = []
        for index in chosen {
            let loaded = try still.loadStill(segment: index, filters: [])
            let cache = try? still.localCache()
            for url in loaded.files.values { ids.insert(try cache?.contentID(of: url) ?? ContentID.of(file: url.path)) }
        }
        if still.usesFarm {
            let client = try still.farm.client()
            let told = try farmCall { try client.invalidate(Array(ids)) }
            print("cleared the cached pictures of \(ids.count) media on \(told) worker(s)")
        } else {
            let removed = try farmCall { try still.localCache().invalidate(media: ids) }
            print("removed \(removed) cached picture(s) of \(ids.count) media")
        }
    }
}
