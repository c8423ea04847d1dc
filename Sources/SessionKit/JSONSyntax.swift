/// Finds the first syntax error in a JSON text with its line and column, because
/// Foundation's decoder only says "not valid JSON".
enum JSONSyntax {
    struct Failure: Error {
        var offset: Int
        var message: String
    }

    static let maximumDepth = 512

    /// `nil` when the text is well-formed JSON.
    static func firstError(in bytes: [UInt8]) -> String? {
        var parser = Parser(bytes: bytes)
        do {
            parser.skipSpace()
            try parser.value(depth: 0)
            parser.skipSpace()
            if parser.index < bytes.count { throw Failure(offset: parser.index, message: "unexpected text after the document") }
            return nil
        } catch let failure as Failure {
            let prefix = bytes[..<min(failure.offset, bytes.count)]
            let line = prefix.filter { $0 == UInt8(ascii: "\n") }.count + 1
            let column = prefix.count - (prefix.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
            return "line \(line), column \(column): \(failure.message)"
        } catch {
            return "\(error)"
        }
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let c = current, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { index += 1 }
        }

        func fail(_ message: String) -> Failure {
            Failure(offset: index, message: current == nil ? "unexpected end of the document (truncated?)" : message)
        }

        mutating func expect(_ c: UInt8, _ what: String) throws {
            skipSpace()
            guard current == c else { throw fail("expected \(what)") }
            index += 1
        }

        mutating func value(depth: Int) throws {
            guard depth < JSONSyntax.maximumDepth else { throw fail("nested deeper than \(JSONSyntax.maximumDepth) levels") }
            skipSpace()
            switch current {
            case UInt8(ascii: "{"):
                index += 1
                skipSpace()
                if current == UInt8(ascii: "}") { index += 1; return }
                while true {
                    skipSpace()
                    guard current == UInt8(ascii: "\"") else { throw fail("expected a quoted key") }
                    try string()
                    try expect(UInt8(ascii: ":"), "':' after a key")
                    try value(depth: depth + 1)
                    skipSpace()
                    if current == UInt8(ascii: ",") { index += 1; continue }
                    try expect(UInt8(ascii: "}"), "',' or '}'")
                    return
                }
            case UInt8(ascii: "["):
                index += 1
                skipSpace()
                if current == UInt8(ascii: "]") { index += 1; return }
                while true {
                    try value(depth: depth + 1)
                    skipSpace()
                    if current == UInt8(ascii: ",") { index += 1; continue }
                    try expect(UInt8(ascii: "]"), "',' or ']'")
                    return
                }
            case UInt8(ascii: "\""):
                try string()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case let c? where c == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c):
                try number()
            default:
                throw fail("expected a value")
            }
        }

        mutating func literal(_ word: String) throws {
            for c in word.utf8 {
                guard current == c else { throw fail("expected '\(word)'") }
                index += 1
            }
        }

        mutating func string() throws {
            index += 1
            while let c = current {
                index += 1
                if c == UInt8(ascii: "\"") { return }
                if c == UInt8(ascii: "\\") {
                    guard current != nil else { break }
                    index += 1
                } else if c < 0x20 {
                    index -= 1
                    throw fail("control character in a string")
                }
            }
            throw fail("unterminated string")
        }

        mutating func number() throws {
            let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
            if current == UInt8(ascii: "-") { index += 1 }
            guard let c = current, digits.contains(c) else { throw fail("expected a digit") }
            while let c = current, digits.contains(c) { index += 1 }
            if current == UInt8(ascii: ".") {
                index += 1
                guard let c = current, digits.contains(c) else { throw fail("expected a digit after '.'") }
                while let c = current, digits.contains(c) { index += 1 }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                index += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
                guard let c = current, digits.contains(c) else { throw fail("expected a digit in the exponent") }
                while let c = current, digits.contains(c) { index += 1 }
            }
        }
    }
}
