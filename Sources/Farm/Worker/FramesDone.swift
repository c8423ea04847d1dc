import Synchronization

/// Frames a running attempt has encoded, counted by its render thread and read by the
/// worker's loop for its heartbeat: the coordinator's measure of a straggler's pace
/// (docs/operations.md, "Scaling": a backup copy only where it would finish first).
final class FramesDone: Sendable {
    private let count = Atomic<Int>(0)

    func add(_ frames: Int) { count.add(frames, ordering: .relaxed) }

    var value: Int { count.load(ordering: .relaxed) }
}
