import Foundation
import ReelTestSupport
import Testing

/// Renders sessions with the built `reel`, as a user would, and reads the results back.
struct RenderFixture {
    let dir: URL

    init(_ name: String = #function) throws {
        dir = try TestEnvironment.scratchDirectory(name)
    }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// `reel sample NAME args…`; fails the test if it fails.
    func sample(_ name: String, _ arguments: [String]) throws {
        let result = try TestEnvironment.reel(["sample", path(name)] + arguments)
        guard result.status == 0 else { throw Failure("reel sample \(name) failed: \(result.stderr)") }
    }

    func session(_ json: String, name: String = "s.json") throws {
        try TestEnvironment.write(json, to: name, in: dir)
    }

    /// Renders `session` to `output`; returns the process result.
    @discardableResult
    func render(_ session: String = "s.json", to output: String = "out.mp4", _ extra: [String] = []) throws -> ProcessResult {
        try TestEnvironment.reel(["render", session, "-o", output] + extra, in: dir)
    }

    /// Renders and requires success.
    func rendered(_ session: String = "s.json", to output: String = "out.mp4", _ extra: [String] = []) throws -> String {
        let result = try render(session, to: output, extra)
        guard result.status == 0 else { throw Failure("reel render failed (\(result.status)): \(result.stderr)") }
        return path(output)
    }
}

/// Reads the frame index back from a `--pattern frame-index` picture (see SampleMedia).
func frameIndex(ofYUV frame: [UInt8], width: Int, height: Int) -> Int {
    let lumaSize = width * height, chromaSize = lumaSize / 4
    let y = Measure.mean(frame[0..<lumaSize], width: width, x0: 0, y0: 0, x1: width, y1: height)
    let u = Measure.mean(frame[lumaSize..<(lumaSize + chromaSize)], width: width / 2, x0: 0, y0: 0, x1: width / 2, y1: height / 2)
    let v = Measure.mean(frame[(lumaSize + chromaSize)...], width: width / 2, x0: 0, y0: 0, x1: width / 2, y1: height / 2)
    let digitY = Int(((y - 40) / 18).rounded()), digitU = Int(((u - 64) / 16).rounded()), digitV = Int(((v - 64) / 16).rounded())
    return digitY + 10 * digitU + 80 * digitV
}
