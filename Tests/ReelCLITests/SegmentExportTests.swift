import Foundation
import ReelTestSupport
import Testing

/// Per-segment export, the SDK's `export(segment:)` (docs/rendering.md, "Per-segment
/// export"): one MP4 per segment with the segment's frames and its own audio, whose video
/// is the whole render's chunks; the farm writes the same bytes as one process.
@Suite(.serialized) struct SegmentExportTests {
    @Test func eachSegmentIsAFileOfItsFramesMadeOfTheWholeRendersChunks() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 2)
        for (flag, target) in [("--segments", "local"), ("-o", "whole.mp4")] {
            let r = try TestEnvironment.reel(["render", "s.json", flag, target, "--in-process", "--workers", "1"] + FarmFixture.shortGOP, in: farm.dir)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let whole = try #require(try FFprobe.streams(farm.path("whole.mp4")).first { $0.codecType == "video" })
        let fraction = try #require(whole.averageFrameRate?.split(separator: "/").compactMap { Double($0) })
        let rate = try #require(fraction.count == 2 && fraction[1] > 0 ? fraction[0] / fraction[1] : nil)
        // Segments: 2 s at 1×, 1 s at 0.5×, 2 s at 2× → 2 s, 2 s and 1 s on the output.
        let expected = [2 * rate, 2 * rate, rate].map { Int(($0).rounded()) }
        #expect(expected.reduce(0, +) == whole.frameCount)

        var segmentPackets: [String] = []
        for (index, frames) in expected.enumerated() {
            let file = farm.path("local/segment-00\(index).mp4")
            let streams = try FFprobe.streams(file)
            let video = try #require(streams.first { $0.codecType == "video" })
            #expect(video.frameCount == frames, "segment \(index)")
            // Each clip has sound: the file has the segment's audio alone, as long as its picture.
            let audio = try #require(streams.first { $0.codecType == "audio" }, "segment \(index) has no audio")
            #expect(abs((audio.duration ?? 0) - Double(frames) / rate) < 0.05, "segment \(index): \(audio.duration ?? 0)")
            let sidecar = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: farm.path("local/segment-00\(index).reel.json"))))
            #expect((sidecar as? [String: Any])?["segment"] as? Int == index)
            segmentPackets += try packetHashes(file)
        }
        // The segments' video is the whole render's, packet for packet: the same chunks.
        #expect(segmentPackets == (try packetHashes(farm.path("whole.mp4"))))

        // The farm, workers sharing nothing but the coordinator: the same files, byte for byte.
        try farm.startCoordinator()
        try farm.startWorker("a")
        try farm.startWorker("b")
        let submitted = try farm.reel(["submit", "s.json", "--segments", "--wait", "-o", "farm"] + FarmFixture.shortGOP)
        #expect(submitted.status == 0, "\(submitted.stderr)")
        for index in expected.indices {
            for name in ["segment-00\(index).mp4", "segment-00\(index).reel.json"] {
                #expect(try Data(contentsOf: URL(fileURLWithPath: farm.path("farm/\(name)")))
                    == Data(contentsOf: URL(fileURLWithPath: farm.path("local/\(name)"))), "\(name)")
            }
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: farm.path("farm")).sorted()
        #expect(left.count == 2 * expected.count, "\(left)")
    }

    /// MD5 of each video packet, in order (the picture's bytes, whatever their timestamps).
    private func packetHashes(_ file: String) throws -> [String] {
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let out = try ProcessRunner.run(ffmpeg, ["-v", "error", "-i", file, "-map", "0:v", "-c", "copy", "-f", "framemd5", "-"]).stdout
        return out.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map(String.init) }
    }
}
