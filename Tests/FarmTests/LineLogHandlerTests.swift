import Foundation
import Logging
import Synchronization
import Testing
@testable import Farm

/// docs/operations.md, "Logs": one line per event; JSON lines parse (by Foundation's
/// parser, not ours) and carry the fields; text lines quote what would split them.
struct LineLogHandlerTests {
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    func logger(_ format: LineLogHandler.Format, level: Logger.Level = .info) -> (Logger, Lines) {
        let lines = Lines()
        let handler = LineLogHandler(label: "reel.test", format: format, level: level) { lines.append($0) }
        return (Logger(label: "reel.test", factory: { _ in handler }), lines)
    }

    @Test func jsonLinesParseAndCarryTheIds() throws {
        var (log, lines) = logger(.json)
        log[metadataKey: "worker"] = "w-1"
        log.log(.warning, "shard 3 of job j \"x\"\nfailed: a\\b\u{01}", LogIDs(job: "j", shard: 3, attempt: 2))
        #expect(lines.all.count == 1)
        let line = try #require(lines.all.first)
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["level"] as? String == "warning")
        #expect(object["label"] as? String == "reel.test")
        #expect(object["message"] as? String == "shard 3 of job j \"x\"\nfailed: a\\b\u{01}")
        #expect(object["job"] as? String == "j")
        #expect(object["shard"] as? Int == 3)
        #expect(object["attempt"] as? Int == 2)
        #expect(object["worker"] as? String == "w-1")
        let time = try #require(object["time"] as? String)
        #expect(try Date(time, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)).timeIntervalSinceNow > -60)
    }

    @Test func textLinesEndWithSortedFieldsAndQuoteSpaces() {
        let (log, lines) = logger(.text)
        log.log(.info, "job j done", LogIDs(job: "j", worker: "a b"))
        let line = lines.all.first ?? ""
        #expect(line.hasSuffix(" info job j done job=j worker=\"a b\""), "\(line)")
    }

    @Test func levelsBelowTheThresholdAreNotWritten() {
        let (log, lines) = logger(.text, level: .warning)
        log.info("not this")
        log.debug("nor this")
        log.error("this")
        #expect(lines.all.count == 1)
        #expect(lines.all.first?.contains(" error this") == true)
    }
}
