import CFFmpeg

/// A libav call that failed: the code, the function and `av_strerror`'s text.
public struct AVError: Error, Hashable, Sendable, CustomStringConvertible {
    public let code: Int32
    public let function: String
    public let message: String

    public init(code: Int32, function: String) {
        self.code = code
        self.function = function
        var buffer = [CChar](repeating: 0, count: Int(CFFmpeg_AV_ERROR_MAX_STRING_SIZE()) + 1)
        if av_strerror(code, &buffer, buffer.count) < 0 {
            message = "error \(code)"
        } else {
            message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    public var description: String { "\(function): \(message)" }

    public static let eof = CFFmpeg_AVERROR_EOF()
    public static let again = CFFmpeg_AVERROR_EAGAIN()
}

/// Every libav return code goes through here: negative codes throw, others pass through.
@discardableResult
func avCheck(_ code: Int32, _ function: @autoclosure () -> String) throws(AVError) -> Int32 {
    guard code >= 0 else { throw AVError(code: code, function: function()) }
    return code
}

/// The engine's own failures (not libav codes), one clear line each.
public struct EngineError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// libav logs to stderr by default; the engine reports through its errors instead.
public enum LibavLog {
    public static func quiet() { av_log_set_level(AV_LOG_QUIET) }
    public static func verbose() { av_log_set_level(AV_LOG_WARNING) }
}
