/// Bytes in memory we own and can hand to libzmq without copying: the buffer stays alive
/// until libzmq's I/O thread calls the free function (see `ZMQSocket.send`).
public final class OwnedBuffer: @unchecked Sendable {
    // Written once by its creator before it is shared; read-only afterwards.
    public let pointer: UnsafeMutableRawBufferPointer

    public init(capacity: Int) {
        pointer = .allocate(byteCount: max(1, capacity), alignment: 16)
        count = 0
    }

    public convenience init(_ bytes: some Collection<UInt8>) {
        self.init(capacity: bytes.count)
        _ = UnsafeMutableRawBufferPointer(rebasing: pointer[0..<bytes.count]).initializeMemory(as: UInt8.self, from: bytes)
        count = bytes.count
    }

    /// Bytes in use (≤ capacity).
    public internal(set) var count: Int

    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: pointer[0..<count]) }

    deinit { pointer.deallocate() }
}
