import Foundation

/// Writes go to a hidden temporary name beside the destination and are renamed into
/// place only when complete, so a failure never leaves a half-written file at `finalPath`.
public struct TemporaryOutput: Sendable {
    public let finalPath: String
    public let path: String

    public init(finalPath: String) {
        self.finalPath = finalPath
        let url = URL(fileURLWithPath: finalPath)
        let name = ".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).\(UInt32.random(in: 0...UInt32.max)).tmp"
        // Keep the extension last so muxers that guess the format from the name still can.
        path = url.deletingLastPathComponent().appendingPathComponent(name + "." + url.pathExtension).path
    }

    /// Whether a file name is one of these temporaries (left by a process that stopped).
    public static func isTemporary(_ name: String) -> Bool {
        name.hasPrefix(".") && name.contains(".tmp.")
    }

    public func commit() throws {
        guard rename(path, finalPath) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw EngineError("cannot move the finished file to \(finalPath): \(reason)")
        }
    }

    public func discard() {
        unlink(path)
    }

    /// Runs `body` with a temporary path beside `finalPath` and renames the result into
    /// place when it succeeds; on any error nothing is left at either name.
    public static func write(to finalPath: String, _ body: (String) throws -> Void) throws {
        let temporary = TemporaryOutput(finalPath: finalPath)
        do {
            try body(temporary.path)
            try temporary.commit()
        } catch {
            temporary.discard()
            throw error
        }
    }
}
