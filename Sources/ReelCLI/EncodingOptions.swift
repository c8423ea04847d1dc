import ArgumentParser
import RenderEngine

/// How the output is encoded, shared by the commands that render.
struct EncodingOptions: ParsableArguments {
    @Option(help: "x264 constant rate factor, 0 … 51.")
    var crf: Int = 20

    @Option(help: "x264 preset.")
    var preset: String = "veryfast"

    @Option(name: .customLong("keyframe-interval"), help: "Seconds between keyframes.")
    var keyframeInterval: Double = 2

    @Option(name: .customLong("audio-bitrate"), help: "AAC bit rate in kb/s, 32 … 512 (default 160).")
    var audioBitrate: Int?

    @Flag(name: .customLong("no-audio"), help: "Write a video-only file.")
    var noAudio = false

    @Option(help: "Video codec: h264 (libx264) or hevc (libx265, tagged hvc1).")
    var codec: EncoderSettings.VideoCodec = .h264

    var settings: EncoderSettings {
        EncoderSettings(crf: crf, preset: preset, keyframeIntervalSeconds: keyframeInterval,
                        audioBitRate: audioBitrate.map { $0 * 1000 }, audio: noAudio ? false : nil,
                        codec: codec == .h264 ? nil : codec)
    }

    func validate() throws {
        do { try settings.validate() } catch { throw ValidationError("\(error)") }
    }
}
