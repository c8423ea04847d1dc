import Farm
import Foundation

/// The HTTP API's way to the coordinator (docs/api.md, "How it works"): the API speaks
/// the farm's own protocol to the coordinator of its process, one client connection per
/// request, so the coordinator stays the one place that validates, schedules and
/// stores. The ZeroMQ calls block, so they run on Dispatch's pool, never on the HTTP
/// server's event loops.
public struct FarmGateway: Sendable {
    let endpoint: String
    let curve: CurveClient?

    public init(endpoint: String, curve: CurveClient?) {
        self.endpoint = endpoint
        self.curve = curve
    }

    func call<T: Sendable>(_ body: @escaping @Sendable (FarmClient) throws -> T) async throws -> T {
        let (endpoint, curve) = (endpoint, curve)
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    let client = try FarmClient(endpoint: endpoint, curve: curve)
                    client.timeoutSeconds = 30
                    return try body(client)
                })
            }
        }
    }

    /// Follows a job: its status now, then each change, until it ends.
    func watch(_ jobID: String) -> AsyncThrowingStream<JobStatus, any Error> {
        let (endpoint, curve) = (endpoint, curve)
        return AsyncThrowingStream { continuation in
            let thread = Thread {
                do {
                    let client = try FarmClient(endpoint: endpoint, curve: curve)
                    let final = try client.watch(jobID) { continuation.yield($0) }
                    continuation.yield(final)
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            thread.start()
        }
    }
}
