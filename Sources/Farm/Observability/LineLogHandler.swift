import Foundation
import Logging

/// Writes each event as one line to standard error (docs/operations.md, "Logs"): `text`
/// for people (`TIME LEVEL message key=value …`), `json` for log shippers (one object per
/// line: time, level, label, message and every field). One write per line, so lines of
/// concurrent threads never interleave.
public struct LineLogHandler: LogHandler {
    public enum Format: String, Sendable, CaseIterable {
        case text, json
    }

    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    let label: String
    let format: Format
    let write: @Sendable (String) -> Void

    public init(label: String, format: Format, level: Logger.Level,
                write: @escaping @Sendable (String) -> Void = LineLogHandler.standardError) {
        self.label = label
        self.format = format
        self.logLevel = level
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { $1 } }
        if let own = event.metadata { fields.merge(own) { $1 } }
        if let error = event.error { fields["error"] = .string("\(error)") }
        let time = Date()
        switch format {
        case .text: write(Self.text(time: time, level: event.level, message: "\(event.message)", fields: fields))
        case .json: write(Self.json(time: time, level: event.level, label: label, message: "\(event.message)", fields: fields))
        }
    }

    // MARK: Formats (pure, tested)

    static func text(time: Date, level: Logger.Level, message: String, fields: Logger.Metadata) -> String {
        var line = "\(timestamp(time)) \(level.rawValue) \(message)"
        for key in fields.keys.sorted() {
            guard let value = fields[key] else { continue }
            let text = "\(value)"
            let quoted = text.isEmpty || text.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" })
            line += " \(key)=" + (quoted ? jsonString(text) : text)
        }
        return line
    }

    static func json(time: Date, level: Logger.Level, label: String, message: String, fields: Logger.Metadata) -> String {
        var members = [("time", jsonString(timestamp(time))), ("level", jsonString(level.rawValue)),
                       ("label", jsonString(label)), ("message", jsonString(message))]
        let reserved = Set(members.map(\.0))
        for key in fields.keys.sorted() where !reserved.contains(key) {
            guard let value = fields[key] else { continue }
            members.append((key, jsonValue(value)))
        }
        return "{" + members.map { "\(jsonString($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }

    private static func jsonValue(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): return jsonString(text)
        case .stringConvertible(let number as Int): return String(number)
        case .stringConvertible(let number as Int64): return String(number)
        case .stringConvertible(let number as Double) where number.isFinite: return "\(number)"
        case .stringConvertible(let other): return jsonString(other.description)
        case .array(let values): return "[" + values.map(jsonValue).joined(separator: ",") + "]"
        case .dictionary(let members):
            return "{" + members.keys.sorted().compactMap { key in
                members[key].map { "\(jsonString(key)):\(jsonValue($0))" }
            }.joined(separator: ",") + "}"
        }
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// UTC with milliseconds: sorts as text and reads the same on every machine of a farm.
    static func timestamp(_ time: Date) -> String {
        time.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    public static let standardError: @Sendable (String) -> Void = { line in
        let bytes = Array((line + "\n").utf8)
        bytes.withUnsafeBufferPointer { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 { if errno == EINTR { continue }; return }
                offset += written
            }
        }
    }
}
