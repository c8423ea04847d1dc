import Logging
import ServiceLifecycle

/// A blocking loop — the coordinator's, a worker's, the webhook deliverer's — as a service
/// of the process's `ServiceGroup` (docs/operations.md, "Shutting down"). The loop runs on
/// a thread of its own; graceful shutdown (SIGTERM, SIGINT) asks it to finish what it is
/// doing, and cancellation (the group's deadline, SIGQUIT, or another service that
/// failed) stops it at once. Every loop answers both, so no service outlives its group.
public struct LoopService: Service, CustomStringConvertible {
    /// What the service group logs (never options, which may hold a CURVE secret key).
    public let description: String
    private let loop: @Sendable () throws -> Void
    private let finish: @Sendable () -> Void
    private let stop: @Sendable () -> Void
    private let logger: Logger

    /// `finish`: end gracefully; `stop`: end now.
    public init(_ name: String, logger: Logger, finish: @escaping @Sendable () -> Void, stop: @escaping @Sendable () -> Void,
                loop: @escaping @Sendable () throws -> Void) {
        description = name
        self.loop = loop
        self.finish = finish
        self.stop = stop
        self.logger = logger
    }

    public func run() async throws {
        let (name, loop, finish, stop) = (description, loop, finish, stop)
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await onOwnThread(named: name, loop)
            } onGracefulShutdown: {
                finish()
            }
        } onCancel: {
            stop()
        }
        logger.info("\(name) stopped")
    }
}

extension LoopService {
    /// The coordinator: a graceful stop ends the loop after its turn, with the turn's
    /// changes committed; every unfinished job resumes from the store at the next start.
    /// The loop checks one flag, so both ways end it within a turn. On a shared store it
    /// stands by until it leads (`Candidacy`).
    public static func coordinator(options: Coordinator.Options, logger: Logger) -> LoopService {
        LoopService("coordinator", logger: logger, finish: {
            logger.info("stopping: the current turn finishes and is committed")
            options.stop.raise()
        }, stop: { options.stop.raise() }) {
            if case .postgres(let url) = options.store {
                try Candidacy(options: options, url: url, logger: logger).run()
            } else {
                try Coordinator(options: options, logger: logger).run()
            }
        }
    }

    /// A worker: a graceful stop drains — no new work, running shards finish or are handed
    /// back within `drainSeconds` — and a cancel leaves at once; the coordinator queues
    /// what it held again when its heartbeats stop.
    public static func worker(options: Worker.Options, logger: Logger) -> LoopService {
        LoopService("worker", logger: logger, finish: { options.drain.raise() }, stop: { options.stop.raise() }) {
            try Worker(options: options, logger: logger).run()
        }
    }

    /// The webhook deliverer: it finishes the delivery in hand; what is still pending is
    /// delivered after the next start.
    public static func webhooks(_ deliverer: WebhookDeliverer, logger: Logger) -> LoopService {
        LoopService("webhooks", logger: logger, finish: { deliverer.stopDelivering() }, stop: { deliverer.stopDelivering() }) {
            try deliverer.run()
        }
    }
}
