import Crypto
import Foundation

/// `sha256:<hex>` of a file's bytes: how sources are named on a coordinator and in the
/// adjustment sidecar.
public enum ContentID {
    public static func of(file path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw EngineError("\(path): cannot be read") }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let block = try handle.read(upToCount: 1 << 20), !block.isEmpty {
            hasher.update(data: block)
        }
        return "sha256:" + hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}

/// SHA-256 as lower-case hex: chunk checksums, recipe keys, still-cache keys.
public enum Digest {
    public static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}
