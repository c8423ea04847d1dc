import Farm
import Foundation
import Logging

/// Starts a real coordinator on a thread of this process (`CoordinatorThread`).
@discardableResult
func startCoordinator(_ options: Coordinator.Options) throws -> (endpoint: String, startSeconds: Double, thread: CoordinatorThread) {
    // Warnings on standard error: a slow turn names its parts (docs/operations.md, "Loop lag").
    var logger = Logger(label: "reel.coordinator", factory: { StreamLogHandler.standardError(label: $0) })
    logger.logLevel = .warning
    let thread = try CoordinatorThread(options, logger: logger)
    return (thread.endpoint, thread.startSeconds, thread)
}
