import Crypto
import Foundation
import SessionKit

extension ContentID {
    /// The content id of a file's bytes, read 1 MiB at a time. Its text form (`sha256:…`)
    /// is how sources are named on a coordinator and in the adjustment sidecar.
    public static func of(file path: String) throws -> String {
        try hashing(file: path).description
    }

    public static func hashing(file path: String) throws -> ContentID {
        BlockingWork.announce("hashing \(path)")
        guard let handle = FileHandle(forReadingAtPath: path) else { throw EngineError("\(path): cannot be read") }
        defer { try? handle.close() }   // read-only: closing cannot lose data
        return try hashing(handle).id
    }

    /// The content id of what is left to read of `handle`, and how many bytes that was.
    public static func hashing(_ handle: FileHandle) throws -> (id: ContentID, size: Int) {
        BlockingWork.announce("hashing a file")
        var hasher = SHA256()
        var size = 0
        while let block = try handle.read(upToCount: 1 << 20), !block.isEmpty {
            hasher.update(data: block)
            size += block.count
        }
        guard let id = ContentID(hex: Digest.hex(hasher.finalize())) else { preconditionFailure("SHA-256 is 32 bytes") }
        return (id, size)
    }
}

/// SHA-256 as lower-case hex: chunk checksums, recipe keys, still-cache keys.
public enum Digest {
    /// Hashing this many bytes or more blocks an event loop (about a millisecond).
    public static let blockingSize = 1 << 20

    public static func sha256(_ data: Data) -> String {
        // Keys and small messages may be hashed anywhere; a chunk or a block may not.
        if data.count >= blockingSize { BlockingWork.announce("hashing \(data.count) bytes") }
        return hex(SHA256.hash(data: data))
    }

    /// Bytes as lowercase hex, two digits each.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
