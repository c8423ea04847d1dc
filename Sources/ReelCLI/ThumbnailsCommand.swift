import ArgumentParser
import Farm
import Foundation
import RenderEngine
import SessionKit

struct Thumbnails: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A filmstrip: N evenly spaced thumbnails of a segment's trimmed range, in one request.")

    @OptionGroup var still: StillOptions
    @Option var segment: Int
    @Option(help: "How many thumbnails (1 … 100).") var count: Int
    @Option(help: "Bounding size WxH of each, at most 400x400.") var size: String
    @Option var mode: ContentMode = .fit
    @Option(help: "A filter: a built-in type name or a filter's JSON.") var filter: String?
    @Option(name: .shortAndLong, help: "Directory for thumb-000.jpg … (created).") var output: String
    @Flag(help: "PNG instead of JPEG.") var png = false
    @Option(help: "Seconds either side of each time within which the nearest keyframe may be shown (default: half the spacing; 0: exact frames).")
    var tolerance: Double?

    func validate() throws {
        let box = try parseSize(size, option: "--size")
        guard box.width >= 1, box.height >= 1, box.width <= 400, box.height <= 400 else {
            throw ValidationError("--size \(size): a thumbnail's bounding size is 1x1 … 400x400")
        }
        guard (1...100).contains(count) else { throw ValidationError("--count \(count): use 1 … 100") }
        _ = try parseFilter(filter)
    }

    func run() throws {
        let loaded = try still.loadStill(segment: segment, filters: try parseFilter(filter))
        let box = try parseSize(size, option: "--size")
        let times: [SessionTime]
        let spacing: SessionTime
        do {
            let renderer = try StillRenderer(loaded: loaded)
            times = try renderer.filmstripTimes(segment: 0, count: count)
            spacing = try renderer.filmstripTolerance(segment: 0, count: count)
        } catch {
            printError("error: \(error)")
            throw Reported(code: ExitStatus.invalidInput)
        }
        let tolerance = try toleranceTime(tolerance) ?? spacing
        let requests = times.map { StillRequest(kind: .thumbnail, segment: 0, time: $0, box: box, mode: mode, png: png, tolerance: tolerance) }
        let (pictures, worker) = try still.make(loaded, requests)
        do { try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true) } catch {
            printError("error: cannot create \(output): \(error)")
            throw Reported(code: ExitStatus.failure)
        }
        var lines: [StillOutput] = []
        for (i, (result, data)) in pictures.enumerated() {
            let path = URL(fileURLWithPath: output).appendingPathComponent(String(format: "thumb-%03d.%@", i, png ? "png" : "jpg")).path
            try still.write(data, to: path)
            lines.append(StillOutput(path: path, width: result.width, height: result.height, cached: result.cached, worker: worker, millis: result.millis,
                                     time: result.time))
        }
        if still.json { try printJSON(lines) }
    }
}
