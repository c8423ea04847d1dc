import Logging
import ServiceLifecycle

/// A worker as a service of a `ServiceGroup` (docs/operations.md, "Shutting down"):
/// graceful shutdown drains — no new work, running shards finish or are handed back within
/// `drainSeconds` — and cancellation (the group's deadline, or SIGQUIT) leaves at once;
/// the coordinator queues what it held again when its heartbeats stop.
public struct WorkerService: Service, CustomStringConvertible {
    let options: Worker.Options
    let logger: Logger

    public init(options: Worker.Options, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// What the service group logs: never the options, which hold the CURVE secret key.
    public var description: String { "worker" }

    public func run() async throws {
        let (options, logger) = (options, logger)
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await onOwnThread(named: "worker") {
                    try Worker(options: options, logger: logger).run()
                }
            } onGracefulShutdown: {
                options.drain.raise()
            }
        } onCancel: {
            options.stop.raise()
        }
        logger.info("worker stopped")
    }
}
