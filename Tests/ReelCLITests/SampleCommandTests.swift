import Foundation
import ReelTestSupport
import Testing

@Suite struct SampleCommandTests {
    @Test func writesTheRequestedMedia() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let path = dir.appendingPathComponent("s.mp4").path
        let result = try TestEnvironment.reel(["sample", path, "--duration", "1.5", "--size", "256x144", "--fps", "24", "--rotate", "270"])
        #expect(result.status == 0)
        let streams = try FFprobe.streams(path)
        let video = try #require(streams.first { $0.codecType == "video" })
        #expect(video.width == 256 && video.height == 144)
        #expect(video.frameCount == 36)
        #expect(video.averageFrameRate == "24/1")
        #expect(video.rotation == 90)   // 270° clockwise = 90° counter-clockwise
        let audio = try #require(streams.first { $0.codecType == "audio" })
        #expect(audio.codecName == "aac")
        #expect(abs((audio.duration ?? 0) - 1.5) < 0.03)
    }

    @Test func noAudioMeansOneStream() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let path = dir.appendingPathComponent("s.mp4").path
        #expect(try TestEnvironment.reel(["sample", path, "--duration", "1", "--no-audio"]).status == 0)
        #expect(try FFprobe.streams(path).map(\.codecType) == ["video"])
    }

    @Test(arguments: [["--size", "33x20"], ["--size", "wide"], ["--rotate", "45"], ["--duration", "-1"], ["--fps", "0"], ["--bogus"]])
    func badArgumentsExitTwoAndWriteNothing(arguments: [String]) throws {
        let dir = try TestEnvironment.scratchDirectory()
        let path = dir.appendingPathComponent("s.mp4").path
        let result = try TestEnvironment.reel(["sample", path] + arguments)
        #expect(result.status == 2)
        #expect(!result.stderr.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    @Test func unwritableDestinationExitsOneAndLeavesNothing() throws {
        let result = try TestEnvironment.reel(["sample", "/nonexistent-dir/s.mp4", "--duration", "1"])
        #expect(result.status == 1)
        #expect(result.stderrLines.count == 1)
    }

    @Test func helpAndUnknownCommands() throws {
        let help = try TestEnvironment.reel(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("validate") && help.stdout.contains("inspect") && help.stdout.contains("sample"))
        #expect(try TestEnvironment.reel(["frobnicate"]).status == 2)
        let version = try TestEnvironment.reel(["--version"])
        #expect(version.status == 0 && version.stdout.contains("libzmq 4."))
    }
}
