import ServiceLifecycle

/// A server the process is useless without (the HTTP API, the metrics and health server):
/// if it ends while the process is not shutting down, it fails the process's service
/// group, so the process exits non-zero and its orchestrator starts it again (jobs resume
/// from the store). Never a half-dead process whose farm port answers while its API and
/// `/healthz` refuse (docs/operations.md, "Shutting down").
public struct EssentialService<Wrapped: Service>: Service, CustomStringConvertible {
    public let description: String
    private let wrapped: Wrapped
    /// Test hook: the server is stopped after this long, as a crash of its task would.
    private let stopAfter: Duration?

    /// The server stopped by itself.
    public struct Ended: Error, CustomStringConvertible {
        public let description: String
    }

    public init(_ name: String, _ wrapped: Wrapped, stopAfter: Duration? = nil) {
        description = name
        self.wrapped = wrapped
        self.stopAfter = stopAfter
    }

    public func run() async throws {
        if let stopAfter {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await wrapped.run() }
                group.addTask { try await Task.sleep(for: stopAfter) }
                _ = try await group.next()
                group.cancelAll()
            }
        } else {
            try await wrapped.run()
        }
        guard Task.isShuttingDownGracefully || Task.isCancelled else {
            throw Ended(description: "\(description) stopped while the process was running: exiting so that it is restarted")
        }
    }
}
