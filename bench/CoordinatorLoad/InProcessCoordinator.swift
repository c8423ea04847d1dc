import Farm
import Foundation

/// Starts a real coordinator on a thread of this process (`CoordinatorThread`).
@discardableResult
func startCoordinator(_ options: Coordinator.Options) throws -> (endpoint: String, startSeconds: Double, thread: CoordinatorThread) {
    let thread = try CoordinatorThread(options)
    return (thread.endpoint, thread.startSeconds, thread)
}
