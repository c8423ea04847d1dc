import Foundation

/// Runs blocking work (hashing a file, a ZeroMQ request) on Dispatch's pool and awaits
/// it, so the HTTP server's event loops and Swift's cooperative threads — as many as
/// cores — never wait on a disk or a socket.
func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}
