import Foundation

/// Runs a blocking loop on a thread of its own and waits for it without holding one of
/// Swift's cooperative threads (there are only as many as cores).
func onOwnThread(named name: String, _ body: @escaping @Sendable () throws -> Void) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let thread = Thread {
            do {
                try body()
                continuation.resume()
            } catch {
                continuation.resume(throwing: error)
            }
        }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
    }
}
