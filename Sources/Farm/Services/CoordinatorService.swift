import Logging
import ServiceLifecycle

/// The coordinator as a service of a `ServiceGroup` (docs/operations.md, "Shutting down"):
/// graceful shutdown (SIGTERM, SIGINT) ends the loop after its turn, with the turn's
/// changes committed; every unfinished job resumes from the store at the next start.
public struct CoordinatorService: Service, CustomStringConvertible {
    let options: Coordinator.Options
    let logger: Logger

    public init(options: Coordinator.Options, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// What the service group logs: never the options, which hold the CURVE secret key.
    public var description: String { "coordinator" }

    public func run() async throws {
        let (options, logger) = (options, logger)
        try await withGracefulShutdownHandler {
            try await onOwnThread(named: "coordinator") {
                try Coordinator(options: options, logger: logger).run()
            }
        } onGracefulShutdown: {
            logger.info("stopping: the current turn finishes and is committed")
            options.stop.raise()
        }
        logger.info("coordinator stopped")
    }
}
