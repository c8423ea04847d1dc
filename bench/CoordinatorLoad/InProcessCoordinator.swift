import Farm
import Foundation
import RenderEngine
import Synchronization

/// Starts a real coordinator on a thread of this process; returns the endpoint it bound.
func startCoordinator(_ options: Coordinator.Options) throws -> String {
    let listening = Mutex<String?>(nil)
    let started = DispatchSemaphore(value: 0)
    Thread {
        do {
            let coordinator = try Coordinator(options: options)
            listening.withLock { $0 = coordinator.endpoint }
            started.signal()
            try coordinator.run()
        } catch {
            print("coordinator: \(error)")
            started.signal()
        }
    }.start()
    started.wait()
    guard let endpoint = listening.withLock({ $0 }) else { throw EngineError("the coordinator did not start") }
    return endpoint
}
