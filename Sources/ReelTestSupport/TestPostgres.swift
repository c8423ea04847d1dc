import Foundation

/// The PostgreSQL server the tests share (docs/operations.md, "A standby coordinator"):
/// `cluster/postgres-serve.sh` starts one on loopback and prints its URL, which `make test`
/// and CI pass as `REELFARM_TEST_POSTGRES`. Each test gets a schema of its own in it, so
/// tests run in parallel and never see each other's rows.
public enum TestPostgres {
    /// The server's URL, when one was given.
    public static var url: String? {
        ProcessInfo.processInfo.environment["REELFARM_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether the tests that need the server run: always in CI (where a missing server is a
    /// failure, not a skip), and wherever a server was given.
    public static var isTested: Bool { url != nil || ProcessInfo.processInfo.environment["CI"] != nil }

    public struct Missing: Error, CustomStringConvertible {
        public var description: String {
            "REELFARM_TEST_POSTGRES is not set: start a server with `cluster/postgres-serve.sh DIR` and export the URL it prints"
        }
    }

    /// A URL whose connections see only a new, empty schema (`search_path`).
    public static func freshStore(_ name: String = #function) throws -> String {
        guard let url else { throw Missing() }
        let schema = "t_" + name.lowercased().filter { $0.isLetter || $0.isNumber }.prefix(30) + "_" + UUID().uuidString.prefix(8).lowercased()
        try psql(url, "CREATE SCHEMA \(schema)")
        let separator = url.contains("?") ? "&" : "?"
        return url + separator + "options=-c%20search_path%3D" + schema
    }

    /// Runs one statement with Debian's `psql`.
    public static func psql(_ url: String, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        process.arguments = [url, "-qAtX", "-v", "ON_ERROR_STOP=1", "-c", sql]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PsqlFailure(description: "psql \(sql): \(String(decoding: message, as: UTF8.self))")
        }
    }

    public struct PsqlFailure: Error, CustomStringConvertible {
        public var description: String
    }
}
