/// A zeroed run of `count` values that lives as long as its owner: the rows of the
/// conversions and the colour chain and the colour memo's table, allocated once instead
/// of per row or per frame. The one place that frees it is `deinit`. Used by one thread
/// at a time.
final class ScratchBuffer<Element: BitwiseCopyable> {
    let pointer: UnsafeMutablePointer<Element>
    let count: Int

    init(count: Int, zero: Element) {
        self.count = max(count, 1)
        pointer = .allocate(capacity: self.count)
        pointer.initialize(repeating: zero, count: self.count)
    }

    deinit { pointer.deallocate() }
}

/// One row of planar 8-bit RGB: where the conversions and a row-wise colour chain meet.
final class PlanarRGBRow {
    let width: Int
    let r: UnsafeMutablePointer<UInt8>
    let g: UnsafeMutablePointer<UInt8>
    let b: UnsafeMutablePointer<UInt8>
    private let storage: ScratchBuffer<UInt8>

    init(width: Int) {
        self.width = width
        storage = ScratchBuffer(count: 3 * width, zero: 0)
        r = storage.pointer
        g = r + width
        b = g + width
    }

    /// Packed RGB24 → the three planes.
    func load(packed: UnsafePointer<UInt8>) {
        for x in 0..<width {
            r[x] = packed[3 * x]
            g[x] = packed[3 * x + 1]
            b[x] = packed[3 * x + 2]
        }
    }

    /// The three planes → packed RGB24.
    func store(packed: UnsafeMutablePointer<UInt8>) {
        for x in 0..<width {
            packed[3 * x] = r[x]
            packed[3 * x + 1] = g[x]
            packed[3 * x + 2] = b[x]
        }
    }
}

/// Clamps to 0…255: the compiler turns it into saturating packs over a vector of lanes.
@inline(__always)
func clampToByte(_ v: Int32) -> UInt8 { UInt8(truncatingIfNeeded: min(max(v, 0), 255)) }
