import CLZ4
import RenderEngine
import Foundation

/// The LZ4 frame format with content checksums (docs/architecture.md, "C handles"): a corrupted chunk fails
/// to decompress instead of turning into garbage.
public enum LZ4Frame {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Compresses `input` into an owned buffer ready for a zero-copy send.
    public static func compress(_ input: UnsafeRawBufferPointer) throws -> OwnedBuffer {
        var preferences = LZ4F_preferences_t()
        preferences.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled
        preferences.frameInfo.contentSize = UInt64(input.count)
        preferences.compressionLevel = 1
        let bound = LZ4F_compressFrameBound(input.count, &preferences)
        let output = OwnedBuffer(capacity: bound)
        let written = LZ4F_compressFrame(output.pointer.baseAddress, bound, input.baseAddress, input.count, &preferences)
        guard LZ4F_isError(written) == 0 else { throw Failure(description: "LZ4 compression: \(name(written))") }
        output.count = written
        return output
    }

    public static func compress(_ data: Data) throws -> OwnedBuffer {
        try data.withUnsafeBytes { try compress($0) }
    }

    /// Decompresses one frame, refusing more than `limit` bytes of output.
    public static func decompress(_ input: Data, limit: Int = 1 << 31) throws -> Data {
        if input.count >= Digest.blockingSize { LoopGuard.assertMayBlock("decompressing \(input.count) bytes") }
        var context: OpaquePointer?
        let created = LZ4F_createDecompressionContext(&context, UInt32(LZ4F_VERSION))
        guard LZ4F_isError(created) == 0, let context else { throw Failure(description: "LZ4 context: \(name(created))") }
        defer { LZ4F_freeDecompressionContext(context) }
        var output = Data()
        var block = [UInt8](repeating: 0, count: 1 << 20)
        try input.withUnsafeBytes { (source: UnsafeRawBufferPointer) in
            var offset = 0
            var hint = 1
            while hint != 0 {
                guard offset < source.count else { throw Failure(description: "LZ4 frame is truncated") }
                var sourceSize = source.count - offset
                var produced = block.count
                hint = LZ4F_decompress(context, &block, &produced, source.baseAddress! + offset, &sourceSize, nil)
                guard LZ4F_isError(hint) == 0 else { throw Failure(description: "LZ4 frame is corrupt: \(name(hint))") }
                offset += sourceSize
                output.append(block, count: produced)
                guard output.count <= limit else { throw Failure(description: "LZ4 frame decompresses past \(limit) bytes") }
            }
            guard offset == source.count else { throw Failure(description: "LZ4 frame has \(source.count - offset) trailing bytes") }
        }
        return output
    }

    private static func name(_ code: Int) -> String {
        LZ4F_getErrorName(code).map { String(cString: $0) } ?? "error \(code)"
    }
}
