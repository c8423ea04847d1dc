import Crypto
import FarmWire
import Foundation
import SessionKit

/// Where a job's result goes when it is done (docs/api.md, "Output to a URL"): presigned
/// PUT URLs for the MP4 and, optionally, its sidecar.
public struct OutputTarget: Codable, Sendable, Hashable {
    public var url: MediaURL
    public var sidecarURL: MediaURL?

    public init(url: MediaURL, sidecarURL: MediaURL? = nil) {
        self.url = url
        self.sidecarURL = sidecarURL
    }
}

extension OriginClient {
    /// PUTs the sidecar (when asked), then the MP4: the MP4's arrival means the job's
    /// result is complete. Each upload carries `Content-Length` and `Content-MD5`.
    public func publish(_ file: String, sidecar: String, to target: OutputTarget) throws -> PublishedOutput {
        let (bytes, sha256, md5) = try Self.digests(of: file)
        if let sidecarURL = target.sidecarURL {
            let (_, _, sidecarMD5) = try Self.digests(of: sidecar)
            _ = try put(file: sidecar, to: sidecarURL, headers: ["Content-Type: application/json", "Content-MD5: \(sidecarMD5)"])
        }
        _ = try put(file: file, to: target.url, headers: ["Content-Type: video/mp4", "Content-MD5: \(md5)"])
        return PublishedOutput(url: target.url.redacted, sidecarURL: target.sidecarURL?.redacted, bytes: bytes, sha256: sha256,
                               contentMD5: md5)
    }

    /// Size, SHA-256 (hex) and MD5 (base64) of a file, read in 1 MiB pieces.
    static func digests(of path: String) throws -> (Int64, String, String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw EngineError("cannot read \(path)") }
        defer { try? handle.close() }   // read-only: nothing to lose on close
        var sha = SHA256()
        var md5 = Insecure.MD5()
        var bytes: Int64 = 0
        while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty {
            sha.update(data: piece)
            md5.update(data: piece)
            bytes += Int64(piece.count)
        }
        return (bytes, sha.finalize().map { String(format: "%02x", $0) }.joined(), Data(md5.finalize()).base64EncodedString())
    }
}
