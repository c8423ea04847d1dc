import CFFmpeg
import SessionKit

/// Fixed encoder settings of a job (docs/rendering.md). Every chunk of a job uses the same ones,
/// so their parameter sets are identical and the chunks concatenate.
public struct EncoderSettings: Hashable, Sendable, Codable {
    public var crf: Int = 20
    public var preset: String = "veryfast"
    public var keyframeIntervalSeconds: Double = 2
    /// AAC bits per second; `nil` = `defaultAudioBitRate`.
    public var audioBitRate: Int?
    /// `false`: a video-only file (the SDK's empty audio settings); `nil` = with audio.
    public var audio: Bool?
    /// The video codec: `h264` (libx264, the default when `nil`) or `hevc` (libx265).
    public var codec: VideoCodec?
    /// Keyframe intervals per shard; `nil` = the farm's choice (docs/scale.md, "Shard
    /// length"), written here when the farm makes it so that the job keeps its plan.
    public var shardKeyframeIntervals: Int64?

    public enum VideoCodec: String, Codable, Sendable, CaseIterable {
        case h264, hevc
    }

    public var videoCodec: VideoCodec { codec ?? .h264 }

    public static let defaultAudioBitRate = 160_000

    public init(crf: Int = 20, preset: String = "veryfast", keyframeIntervalSeconds: Double = 2,
                audioBitRate: Int? = nil, audio: Bool? = nil, codec: VideoCodec? = nil, shardKeyframeIntervals: Int64? = nil) {
        self.crf = crf
        self.preset = preset
        self.keyframeIntervalSeconds = keyframeIntervalSeconds
        self.audioBitRate = audioBitRate
        self.audio = audio
        self.codec = codec
        self.shardKeyframeIntervals = shardKeyframeIntervals
    }

    public var writesAudio: Bool { audio ?? true }
    public var effectiveAudioBitRate: Int { audioBitRate ?? Self.defaultAudioBitRate }

    public static let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"]

    public var keyframeInterval: Rational { Rational.approximating(keyframeIntervalSeconds) ?? Rational(2) }

    /// Frames between IDR frames at frame duration `frameDuration`.
    public func gopFrames(frameDuration: Rational) -> Int64 {
        max(1, (keyframeInterval / frameDuration).roundedHalfUp)
    }

    /// A setting out of its range: named as the CLI option and as the API's JSON key.
    public struct Invalid: Error, CustomStringConvertible {
        /// The setting's key in the API's `settings` object.
        public let key: String
        /// The message in the API's terms (the JSON value).
        public let apiMessage: String
        /// The message in the CLI's terms (its option and units).
        public let description: String
    }

    public func validate() throws {
        guard (0...51).contains(crf) else {
            throw Invalid(key: "crf", apiMessage: "\(crf) is outside 0 … 51", description: "--crf \(crf) is outside 0 … 51")
        }
        let encoder = videoCodec == .hevc ? "libx265" : "libx264"
        guard avcodec_find_encoder_by_name(encoder) != nil else {
            let why = "this system's libavcodec has no \(encoder) encoder"
            throw Invalid(key: "codec", apiMessage: "\(videoCodec.rawValue): \(why)", description: "--codec \(videoCodec.rawValue): \(why)")
        }
        guard Self.presets.contains(preset) else {
            let known = Self.presets.joined(separator: ", ")
            throw Invalid(key: "preset", apiMessage: "'\(preset)' is not one of \(known)", description: "--preset '\(preset)' is not one of \(known)")
        }
        guard keyframeIntervalSeconds.isFinite, keyframeIntervalSeconds >= 0.1, keyframeIntervalSeconds <= 60 else {
            throw Invalid(key: "keyframeIntervalSeconds", apiMessage: "\(keyframeIntervalSeconds) is outside 0.1 … 60",
                          description: "--keyframe-interval \(keyframeIntervalSeconds) s is outside 0.1 … 60")
        }
        if let shardKeyframeIntervals, !(1...32).contains(shardKeyframeIntervals) {
            throw Invalid(key: "shardKeyframeIntervals", apiMessage: "\(shardKeyframeIntervals) is outside 1 … 32",
                          description: "--shard-keyframe-intervals \(shardKeyframeIntervals) is outside 1 … 32")
        }
        if let audioBitRate, !(32_000...512_000).contains(audioBitRate) {
            throw Invalid(key: "audioBitRate", apiMessage: "\(audioBitRate) bits per second is outside 32000 … 512000",
                          description: "--audio-bitrate \(audioBitRate / 1000) kb/s is outside 32 … 512")
        }
    }
}
