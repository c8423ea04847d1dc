import CFFmpeg

/// Identifies the engine's output: a job never mixes chunks from different engine
/// versions (docs/rendering.md). Bump `engine` whenever rendered bytes may change.
public enum EngineVersion {
    public static let engine = "0.3.5"

    public static var libraries: String {
        "libavformat \(version(avformat_version())), libavcodec \(version(avcodec_version())), "
            + "libswscale \(version(swscale_version()))"
    }

    private static func version(_ v: UInt32) -> String { "\(v >> 16).\((v >> 8) & 0xFF).\(v & 0xFF)" }
}
