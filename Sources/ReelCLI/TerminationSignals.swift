import Dispatch
import Foundation

/// Runs `action` on SIGTERM or SIGINT instead of dying (Kubernetes sends SIGTERM, then
/// SIGKILL after its grace period). Keep the returned sources alive as long as it applies.
func onTerminationSignals(_ action: @escaping @Sendable (Int32) -> Void) -> [any DispatchSourceSignal] {
    [SIGTERM, SIGINT].map { number in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler { action(number) }
        source.resume()
        return source
    }
}
