import Foundation

/// ffprobe as an independent oracle: what the file really holds, read by another program.
public enum FFprobe {
    public struct Stream: Sendable {
        public var codecType: String
        public var codecName: String
        public var width: Int?
        public var height: Int?
        public var averageFrameRate: String?
        public var duration: Double?
        public var frameCount: Int?
        public var sampleRate: Int?
        public var channels: Int?
        public var rotation: Double?
    }

    public static func streams(_ path: String) throws -> [Stream] {
        guard let ffprobe = ProcessRunner.which("ffprobe") else { throw ProbeFailure("ffprobe is not installed") }
        let result = try ProcessRunner.run(ffprobe, ["-v", "error", "-count_frames", "-show_streams", "-of", "json", path])
        guard result.status == 0,
              let json = try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any],
              let streams = json["streams"] as? [[String: Any]] else {
            throw ProbeFailure("ffprobe failed on \(path): \(result.stderr)")
        }
        return streams.map { s in
            let sideData = (s["side_data_list"] as? [[String: Any]]) ?? []
            return Stream(
                codecType: s["codec_type"] as? String ?? "",
                codecName: s["codec_name"] as? String ?? "",
                width: s["width"] as? Int, height: s["height"] as? Int,
                averageFrameRate: s["avg_frame_rate"] as? String,
                duration: (s["duration"] as? String).flatMap(Double.init),
                frameCount: (s["nb_read_frames"] as? String).flatMap(Int.init),
                sampleRate: (s["sample_rate"] as? String).flatMap(Int.init),
                channels: s["channels"] as? Int,
                rotation: sideData.compactMap { ($0["rotation"] as? NSNumber)?.doubleValue }.first)
        }
    }

    public struct ProbeFailure: Error, CustomStringConvertible {
        public var description: String
        public init(_ d: String) { description = d }
    }
}
