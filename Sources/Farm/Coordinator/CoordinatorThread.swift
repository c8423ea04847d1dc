import Foundation
import Logging
import RenderEngine
import Synchronization

/// A coordinator running on a thread of this process, for tests and benchmarks that
/// drive a real one without a process of its own.
public final class CoordinatorThread: Sendable {
    /// Where it listens (a bound `*` port resolved).
    public let endpoint: String
    /// Seconds its start took: the store opened, unfinished jobs read, the socket bound.
    public let startSeconds: Double
    private let stopSignal: StopSignal
    private let end = LoopEnd()

    /// When the loop ended, and why if it failed.
    private final class LoopEnd: Sendable {
        let ended = DispatchSemaphore(value: 0)
        let failure = Mutex<String?>(nil)
    }

    /// Starts it and returns once it listens; a coordinator that cannot start throws.
    /// `logger`: the coordinator's (none by default).
    public init(_ options: Coordinator.Options,
                logger: Logger = Logger(label: "reel.coordinator", factory: { _ in SwiftLogNoOpLogHandler() })) throws {
        stopSignal = options.stop
        let started = Mutex<Result<(String, Double), any Error>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let end = end
        let began = Date()
        Thread {
            let coordinator: Coordinator
            do {
                coordinator = try Coordinator(options: options, logger: logger)
                started.withLock { $0 = .success((coordinator.endpoint, Date().timeIntervalSince(began))) }
            } catch {
                started.withLock { $0 = .failure(error) }
                ready.signal()
                end.ended.signal()
                return
            }
            ready.signal()
            do { try coordinator.run() } catch { end.failure.withLock { $0 = "\(error)" } }
            end.ended.signal()
        }.start()
        ready.wait()
        switch started.withLock({ $0 }) {
        case .success(let (endpoint, seconds)):
            self.endpoint = endpoint
            startSeconds = seconds
        case .failure(let error): throw error
        case nil: throw EngineError("the coordinator did not start")
        }
    }

    /// Why its loop ended, if it ended with an error.
    public var runFailure: String? { end.failure.withLock { $0 } }

    /// Stops its loop and waits for it to end (at most `seconds`).
    public func stop(waiting seconds: Double = 10) {
        stopSignal.raise()
        _ = end.ended.wait(timeout: .now() + seconds)
    }

    /// Waits for its loop to end (after its stop signal was raised elsewhere).
    public func waitUntilEnded() { end.ended.wait() }
}

extension Coordinator.Options {
    /// A coordinator of its own for a test: on `ipc://` in `directory`, its state there too,
    /// keeping no disk space free.
    public static func scratch(in directory: URL) -> Coordinator.Options {
        var options = Coordinator.Options(endpoint: "ipc://" + directory.appendingPathComponent("c.ipc").path,
                                          stateDirectory: directory.appendingPathComponent("state"))
        options.minimumFreeBytes = 0
        return options
    }
}
