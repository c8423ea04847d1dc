import ArgumentParser
import Farm
import Foundation
import RenderEngine
import SessionKit

struct FrameCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "frame",
        abstract: "A frame of a segment (generateFrame): no filters; actualSize, or renderSize with --cropped.")

    @OptionGroup var still: StillOptions
    @Option var segment: Int
    @Option(help: "Seconds into the segment's whole media, 0 … its duration.") var time: Double
    @Flag(help: "Apply the segment's cropRect (default size: the video's renderSize).") var cropped = false
    @Option(name: .customLong("max-size"), help: "Fit the frame inside WxH.") var maxSize: String?
    @Option(name: .shortAndLong, help: "Output PNG (or JPEG for .jpg).") var output: String
    @Option(help: "Seconds either side of --time within which the nearest keyframe may be shown; default: the exact frame.")
    var tolerance: Double?

    func validate() throws {
        if let maxSize { _ = try parseSize(maxSize, option: "--max-size") }
    }

    func run() throws {
        let loaded = try still.loadStill(segment: segment, filters: [])
        let lower = output.lowercased()
        let request = StillRequest(kind: .frame, segment: 0, time: try sessionTime(time),
                                   box: try maxSize.map { try parseSize($0, option: "--max-size") }, cropped: cropped,
                                   png: !(lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg")), tolerance: try toleranceTime(tolerance))
        try still.makeOne(loaded, request, to: output)
    }
}
