import Synchronization

/// Whether this coordinator takes work now (docs/operations.md, "A standby coordinator"):
/// `/readyz` answers 200 while it leads and 503 while it stands by or starts, so that a
/// Kubernetes Service sends workers and clients to the leader. `/healthz` stays liveness.
public final class Readiness: Sendable {
    private let leading = Atomic<Bool>(false)

    public init() {}

    public var isReady: Bool { leading.load(ordering: .relaxed) }

    public func set(_ ready: Bool) { leading.store(ready, ordering: .relaxed) }
}
