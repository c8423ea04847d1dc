import Foundation
import ReelTestSupport
import Testing

/// docs/operations.md, "The progress line": what `reel render` writes to a terminal and to
/// a pipe. A 6-s clip in 2-s keyframe intervals is 2 video shards (4 s + 2 s) and a
/// piece of sound, which is not counted.
@Suite(.serialized) struct ProgressLineTests {
    static func session() throws -> URL {
        let dir = try TestEnvironment.scratchDirectory("progress-line")
        let made = try TestEnvironment.reel(["sample", dir.appendingPathComponent("clip.mp4").path, "--duration", "6", "--size", "320x240"])
        guard made.status == 0 else { throw Failure("reel sample failed: \(made.stderr)") }
        try TestEnvironment.write(#"{"video": {"renderSize": [320, 240], "videoSegments": [{"source": "clip.mp4", "trimDuration": 6}]}}"#,
                                  to: "s.json", in: dir)
        return dir
    }

    static var finalLine: Regex<(Substring, Substring)> { #/render: done 180 frames in [0-9.]+ s \(([0-9.]+) fps average\), 2 video shards/# }

    /// Every redrawn or appended state's frames done, rate (nil for "--") and shards.
    static func states(_ text: String) -> [(frames: Int, fps: Double?, shards: String)] {
        text.matches(of: #/ ([0-9]+)/180 frames  ([0-9.]+|--) fps  video shards ([0-9]+/[0-9]+)/#).map {
            (Int($0.1) ?? -1, Double($0.2), String($0.3))
        }
    }

    @Test func onATerminalOneLineIsRedrawnThenTheFinalLineOnce() throws {
        let dir = try Self.session()
        let run = try ProcessRunner.runOnTerminal(TestEnvironment.reel, ["render", "s.json", "-o", "out.mp4"], directory: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        // One line drawn over and over ("\r"), ended by the final line, then nothing.
        #expect(lines.count == 2 && lines[1].isEmpty, "\(lines)")
        let redraws = (lines.first ?? "").split(separator: "\r")
        let final = try #require(redraws.last)
        let average = try #require(try Self.finalLine.firstMatch(in: final), "\(final)")
        #expect((Double(average.1) ?? 0) > 0)
        #expect(run.stderr.ranges(of: "render: done").count == 1)
        for state in Self.states(run.stderr) {
            #expect(state.shards.hasSuffix("/2"), "the sound piece counted as a video shard: \(state)")
            if state.frames > 0 { #expect((state.fps ?? 0) > 0, "no rate after frames were done: \(state)") }
        }
    }

    @Test func onAPipeLinesAreAppendedWithoutRepeatsThenTheFinalLineOnce() throws {
        let dir = try Self.session()
        let run = try TestEnvironment.reel(["render", "s.json", "-o", "out.mp4"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("\r"), "a redraw on a pipe")
        let lines = run.stderrLines.filter { $0.hasPrefix("render:") }
        #expect(lines.count == run.stderrLines.count, "\(run.stderrLines)")
        let final = try #require(lines.last)
        #expect(try Self.finalLine.wholeMatch(in: final) != nil, "\(final)")
        #expect(lines.dropLast().allSatisfy { !$0.hasPrefix("render: 100%") && !$0.hasPrefix("render: done") }, "\(lines)")
        let states = Self.states(lines.dropLast().joined(separator: "\n"))
        #expect(states.count == lines.count - 1)
        #expect(Set(states.map(\.frames)).count == states.count, "the same frames twice: \(lines)")
        for state in states {
            #expect(state.shards.hasSuffix("/2"), "\(state)")
            if state.frames > 0 { #expect((state.fps ?? 0) > 0, "\(state)") }
        }
    }
}
