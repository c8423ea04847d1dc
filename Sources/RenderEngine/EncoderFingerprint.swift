import CFFmpeg
import Foundation
import SessionKit

/// What a machine's encoder makes of a fixed clip (docs/rendering.md, "HEVC output"):
/// the SHA-256 of a 12-frame 64×64 synthetic clip encoded with the chunk settings. Two
/// workers whose fingerprints differ would write chunks that need not concatenate, so
/// the coordinator gives a job's shards only to workers that agree with the first one.
public enum EncoderFingerprint {
    /// The fingerprint of each codec this machine encodes (a codec whose encoder is
    /// missing is left out). Computed once per process.
    public static let all: [String: String] = {
        LibavLog.quiet()   // the encoders' banners would break a worker's JSON log
        var found: [String: String] = [:]
        for codec in EncoderSettings.VideoCodec.allCases {
            if let print = try? of(codec) { found[codec.rawValue] = print }
        }
        return found
    }()

    /// Computes `all` on a thread of its own, so that a worker started later in this
    /// process says hello without waiting for it: about 20 ms, mostly libx265 starting
    /// (docs/benchmarks.md, "Starting a render"). Whoever reads `all` before it is done
    /// waits for this computation instead of starting another.
    public static func computeInBackground() {
        let thread = Thread { _ = all }
        thread.name = "encoder fingerprint"
        thread.start()
    }

    static func of(_ codec: EncoderSettings.VideoCodec) throws -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("reel-fingerprint-\(ProcessInfo.processInfo.processIdentifier)-\(codec.rawValue).mp4").path
        defer { unlink(path) }
        let settings = EncoderSettings(keyframeIntervalSeconds: 0.2, codec: codec)
        let writer = try VideoChunkWriter(path: path, width: 64, height: 64, frameDuration: Rational(1, 30)!, settings: settings)
        let picture = try Frame(videoFormat: AV_PIX_FMT_YUV420P, width: 64, height: 64)
        for index in 0..<12 {
            try picture.makeWritable()
            let f = picture.pointer.pointee
            for (plane, size) in [(f.data.0, 64), (f.data.1, 32), (f.data.2, 32)].enumerated() {
                guard let base = size.0 else { continue }
                let stride = Int([f.linesize.0, f.linesize.1, f.linesize.2][plane])
                for y in 0..<size.1 {
                    for x in 0..<size.1 { base[y * stride + x] = UInt8(truncatingIfNeeded: x * 3 + y * 5 + index * 7 + plane * 40) }
                }
            }
            try writer.append(picture)
        }
        try writer.close()
        return Digest.sha256(try Data(contentsOf: URL(fileURLWithPath: path))).prefix(16).description
    }
}
