import Foundation
import Farm

/// Runs blocking work (a ZeroMQ request to the coordinator) on threads of its own and
/// awaits it, so the HTTP server's event loops and Swift's cooperative threads — as many as
/// cores — never wait on a socket. The threads are made up front: Dispatch's pool, used
/// before, adds a thread about once a second while its threads are blocked, so with 8
/// pictures waiting for a worker the next request waited 6.8 s for a thread
/// (`HostileClientTests.aClientsPicturesBeingMadeAreBoundedBy429EvenBySignedURLs`).
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        BlockingThreads.shared.run { continuation.resume(with: Result { try body() }) }
    }
}

/// A fixed pool of threads for blocking calls, as many as the gateway's calls at once.
final class BlockingThreads: Sendable {
    static let shared = BlockingThreads(count: FarmGateway.concurrentCalls)

    private let threads: LaneThreads<SharedQueue<@Sendable () -> Void>>

    init(count: Int) {
        // A state of nothing opens without fail; the pool lives as long as the process.
        threads = try! LaneThreads(name: "gateway", count: count, queue: SharedQueue(), stackSize: 1 << 20,
                                   open: { _ in () }, handle: { _, job in job() })
    }

    func run(_ job: @escaping @Sendable () -> Void) { threads.queue.post(job) }
}
