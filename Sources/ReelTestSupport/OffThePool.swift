import Foundation

/// Runs blocking work (starting processes, waiting for files) on a thread of its own and
/// awaits it: an async test that blocked would hold one of the few threads every async
/// test in the process shares (two on a 2-core machine), and starve the others.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
