import Farm
import Foundation
import RenderEngine
import Synchronization

/// Starts a real coordinator on a thread of this process; returns the endpoint it bound,
/// the seconds its start took (resuming its jobs), and a semaphore signalled when its loop ends.
@discardableResult
func startCoordinator(_ options: Coordinator.Options) throws -> (endpoint: String, startSeconds: Double, ended: DispatchSemaphore) {
    let ended = DispatchSemaphore(value: 0)
    let began = Date()
    let startSeconds = Mutex(0.0)
    let listening = Mutex<String?>(nil)
    let started = DispatchSemaphore(value: 0)
    Thread {
        do {
            let coordinator = try Coordinator(options: options)
            startSeconds.withLock { $0 = Date().timeIntervalSince(began) }
            listening.withLock { $0 = coordinator.endpoint }
            started.signal()
            try coordinator.run()
        } catch {
            print("coordinator: \(error)")
            started.signal()
        }
        ended.signal()
    }.start()
    started.wait()
    guard let endpoint = listening.withLock({ $0 }) else { throw EngineError("the coordinator did not start") }
    return (endpoint, startSeconds.withLock { $0 }, ended)
}
