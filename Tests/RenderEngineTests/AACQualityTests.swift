import Foundation
import ReelTestSupport
import Testing
@testable import RenderEngine

/// The AAC track runs at a constant quality chosen from the job's audio bit rate
/// (docs/rendering.md, "Audio in pieces"): on broadband music the file's average rate is close
/// to the rate asked for.
@Suite struct AACQualityTests {
    @Test func qualityRisesWithTheRateAndIsLinearBetweenCalibratedRates() {
        let rates = stride(from: 16_000, through: 600_000, by: 8_000).map { AACQuality.quality(forBitRate: $0) }
        #expect(zip(rates, rates.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(AACQuality.quality(forBitRate: 112_000) == (0.79 + 1.06) / 2)
        #expect(AACQuality.quality(forBitRate: 8_000) == 0.48)
    }

    /// Tones over pink noise, 8 s, encoded by the engine's own writer at three rates.
    @Test(arguments: [96_000, 160_000, 256_000])
    func theAverageRateOnMusicIsWithinAFifthOfTheRateAskedFor(bitRate: Int) throws {
        let dir = try TestEnvironment.scratchDirectory("aac-rate-\(bitRate)")
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let wav = dir.appendingPathComponent("music.wav").path
        let made = try ProcessRunner.run(ffmpeg, [
            "-v", "error", "-y",
            "-f", "lavfi", "-i", "aevalsrc='0.2*sin(2*PI*220*t)*(0.5+0.5*sin(2*PI*0.5*t))+0.15*sin(2*PI*330*t+sin(2*PI*3*t))|0.2*sin(2*PI*221*t)+0.1*sin(2*PI*440*t)':d=8:s=48000",
            "-f", "lavfi", "-i", "anoisesrc=d=8:c=pink:r=48000:a=0.05:seed=3",
            "-filter_complex", "[1]aformat=channel_layouts=stereo[n];[0][n]amix=inputs=2:normalize=0", "-c:a", "pcm_f32le", wav,
        ])
        try #require(made.status == 0, "\(made.stderr)")
        let decoded = try ProcessRunner.run(ffmpeg, ["-v", "error", "-i", wav, "-f", "f32le", "-"])
        let samples = decoded.stdoutData.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let out = dir.appendingPathComponent("music.m4a").path
        let writer = try AudioChunkWriter(path: out, sampleRate: 48_000, bitRate: bitRate)
        let left = stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
        let right = stride(from: 1, to: samples.count, by: 2).map { samples[$0] }
        try writer.append(left: left, right: right)
        try writer.close()

        let ffprobe = try #require(ProcessRunner.which("ffprobe"))
        let sizes = try ProcessRunner.run(ffprobe, ["-v", "error", "-select_streams", "a", "-show_entries", "packet=size", "-of", "csv=p=0", out])
            .stdout.split(separator: "\n").compactMap { Int($0.split(separator: ",").first ?? "") }
        let rate = Double(sizes.reduce(0, +) * 8) / (Double(sizes.count) * 1024 / 48_000)
        #expect(abs(rate / Double(bitRate) - 1) <= 0.2, "\(Int(rate)) b/s asked \(bitRate)")
    }
}
