import Foundation
import ReelTestSupport
import Testing
@testable import RenderEngine
@testable import SessionKit

@Suite struct MediaProbeTests {
    private func sample(_ name: String, in dir: URL, _ configure: (inout SampleMedia) -> Void) throws -> String {
        var media = SampleMedia()
        media.width = 320
        media.height = 240
        media.duration = 2
        configure(&media)
        let path = dir.appendingPathComponent(name).path
        try media.write(to: path)
        return path
    }

    @Test func probeAgreesWithFFprobeOnASample() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let path = try sample("a.mp4", in: dir) { $0.framesPerSecond = 25; $0.duration = 2.4 }
        let info = try MediaProbe.probe(path: path)
        let streams = try FFprobe.streams(path)
        let video = try #require(streams.first { $0.codecType == "video" })
        let audio = try #require(streams.first { $0.codecType == "audio" })
        #expect(video.frameCount == 60)
        #expect(audio.sampleRate == 48000 && audio.channels == 2)
        #expect(info.frameDuration == Rational(1, 25))
        #expect(info.duration == Rational(12, 5))
        #expect(abs(info.duration.doubleValue - (video.duration ?? 0)) < 0.001)
        #expect(info.codedWidth == 320 && info.codedHeight == 240)
        #expect(info.hasAudio)
        #expect(info.displayTransform == nil && info.orientation == .up)
        #expect(info.colorMatrix == "bt709" && info.colorRange == "tv")
    }

    @Test(arguments: [(90, -90.0, Orientation.right), (180, 180.0, .down), (270, 90.0, .left)])
    func rotationIsReadLikeAPhonesDisplayMatrix(rotate: Int, ffprobeRotation: Double, orientation: Orientation) throws {
        let dir = try TestEnvironment.scratchDirectory()
        let path = try sample("r.mp4", in: dir) { $0.rotation = rotate; $0.audio = false }
        let streams = try FFprobe.streams(path)
        #expect(abs(abs(streams.first?.rotation ?? 0) - abs(ffprobeRotation)) < 0.01)
        let info = try MediaProbe.probe(path: path)
        #expect(info.orientation == orientation)
        #expect(!info.hasAudio)
        #expect(orientation.actualSize(of: info.naturalSize) == (rotate == 180 ? Size(width: 320, height: 240) : Size(width: 240, height: 320)))
    }

    @Test func portraitSampleReadsAsAVFoundationsTransform() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let path = try sample("p.mp4", in: dir) { $0.rotation = 90 }
        #expect(try FFprobe.streams(path).first?.rotation == -90)
        let t = try #require(try MediaProbe.probe(path: path).displayTransform)
        #expect([t.a, t.b, t.c, t.d] == [0, 1, -1, 0])
    }

    @Test func notMediaIsAClearError() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let path = try TestEnvironment.write("this is not a video", to: "fake.mp4", in: dir)
        #expect(throws: EngineError.self) { try MediaProbe.probe(path: path) }
        let empty = try TestEnvironment.write("", to: "empty.mp4", in: dir)
        #expect(throws: (any Error).self) { try MediaProbe.probe(path: empty) }
    }

    @Test func truncatedMediaIsAClearError() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let plain = try sample("t.mp4", in: dir) { _ in }
        // With the index at the front (faststart) a cut file still opens: the probe must notice.
        let path = dir.appendingPathComponent("fast.mp4").path
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let remux = try ProcessRunner.run(ffmpeg, ["-v", "error", "-i", plain, "-c", "copy", "-movflags", "+faststart", path])
        #expect(remux.status == 0)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        for fraction in [0.3, 0.6, 0.9] {
            let cut = dir.appendingPathComponent("cut-\(fraction).mp4")
            try data.prefix(Int(Double(data.count) * fraction)).write(to: cut)
            do {
                _ = try MediaProbe.probe(path: cut.path)
                Issue.record("a file cut at \(fraction) probed without error")
            } catch {
                #expect("\(error)".contains(cut.path))
            }
        }
    }

    @Test func samplesAreDeterministic() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let a = try sample("1.mp4", in: dir) { $0.pattern = .frameIndex }
        let b = try sample("2.mp4", in: dir) { $0.pattern = .frameIndex }
        #expect(try Data(contentsOf: URL(fileURLWithPath: a)) == Data(contentsOf: URL(fileURLWithPath: b)))
    }
}
