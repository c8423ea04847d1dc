import Foundation
import Logging
import RenderEngine
import Synchronization

/// The workers of an embedded farm (`EmbeddedFarm`) that run on threads of its process, one
/// slot each: they say hello as soon as they start, with no process to launch. Each stops,
/// and is waited for, when the farm stops.
final class WorkerThreads: Sendable {
    private let endpoint: String
    private let roots: [URL]
    private let origins: OriginClient
    private let state: URL
    private let logger: Logger
    private let running = Mutex<[(stop: StopSignal, finished: DispatchSemaphore)]>([])

    /// Workers of the farm at `endpoint`, reading `roots` and `origins`, with their caches
    /// under `state`.
    init(endpoint: String, roots: [URL], origins: OriginClient, state: URL, logger: Logger) {
        (self.endpoint, self.roots, self.origins, self.state, self.logger) = (endpoint, roots, origins, state, logger)
    }

    var count: Int { running.withLock { $0.count } }

    /// Starts one more worker thread.
    func start() {
        let index = count
        // `cache-0` … for threads; the processes' caches are `cache-1` …, so a second
        // thread's is named apart.
        let directory = index == 0 ? "cache-0" : "cache-thread-\(index)"
        var options = Worker.Options(endpoint: endpoint, slots: 1, cacheDirectory: state.appendingPathComponent(directory))
        options.mediaRoots = roots
        options.origins = origins
        let ready = options
        let finished = DispatchSemaphore(value: 0)
        let logger = self.logger
        let thread = Thread {
            defer { finished.signal() }
            do {
                try Worker(options: ready, logger: logger).run()
            } catch {
                logger.error("a worker thread of the render stopped: \(error)")   // the other workers go on
            }
        }
        thread.name = "worker \(index)"
        thread.stackSize = 8 << 20
        running.withLock { $0.append((ready.stop, finished)) }
        thread.start()
    }

    /// Stops every worker thread and waits for each to end.
    func stop() {
        let all = running.withLock { list in
            defer { list = [] }
            return list
        }
        for worker in all { worker.stop.raise() }
        for worker in all { worker.finished.wait() }
    }
}
