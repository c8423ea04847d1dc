import SessionKit

/// Remembers what a chain of per-pixel stages made of recent 8-bit colours, so a colour
/// seen again costs one table read instead of the chain (docs/filters.md, "How the engine
/// runs a chain"). Exact: a remembered value is the chain's own result for that colour,
/// so pictures are the same bits with or without it; only position-independent stages
/// may be remembered.
///
/// Direct-mapped: 2¹⁸ slots of 8 bytes (2 MB, in the processor's outer cache); a slot
/// holds `(colour + 1) << 32 | result`, 0 when empty. Used by one thread at a time.
final class ColourMemo {
    static let slotBits = 18
    private(set) var slots: [UInt64]
    /// The chain whose results these are.
    let owner: AnyObject

    init(owner: AnyObject) {
        self.owner = owner
        slots = [UInt64](repeating: 0, count: 1 << Self.slotBits)
    }

    @inline(__always)
    static func slot(_ colour: UInt32) -> Int {
        Int((colour &* 0x9E37_79B1) >> UInt32(32 - slotBits))
    }

    /// Runs `ops` over packed RGB24 rows in place: colours in the memo are written from
    /// it; the others are gathered into float planes (through `leading`), run through the
    /// chain as one short row, and remembered.
    func apply(_ ops: [any PixelOperation], leading: [Float], rgb: UnsafeMutablePointer<UInt8>,
               width: Int, height: Int, stride: Int) {
        var planes = [Float](repeating: 0, count: width * 3)
        var missed = [Int32](repeating: 0, count: width)
        leading.withUnsafeBufferPointer { lead in
            planes.withUnsafeMutableBufferPointer { buffer in
                missed.withUnsafeMutableBufferPointer { misses in
                    slots.withUnsafeMutableBufferPointer { memo in
                        guard let base = buffer.baseAddress, let at = misses.baseAddress, let table = memo.baseAddress else { return }
                        let r = base, g = base + width, b = base + 2 * width
                        for y in 0..<height {
                            let row = rgb + y * stride
                            var count = 0
                            for x in 0..<width {
                                let p = row + 3 * x
                                let colour = UInt32(p[0]) << 16 | UInt32(p[1]) << 8 | UInt32(p[2])
                                let entry = table[Self.slot(colour)]
                                if UInt32(truncatingIfNeeded: entry >> 32) == colour &+ 1 {
                                    p[0] = UInt8(truncatingIfNeeded: entry >> 16)
                                    p[1] = UInt8(truncatingIfNeeded: entry >> 8)
                                    p[2] = UInt8(truncatingIfNeeded: entry)
                                } else {
                                    r[count] = lead[Int(p[0])]
                                    g[count] = lead[Int(p[1])]
                                    b[count] = lead[Int(p[2])]
                                    at[count] = Int32(x)
                                    count += 1
                                }
                            }
                            guard count > 0 else { continue }
                            let pixels = PixelRow(r: r, g: g, b: b, count: count, y: y, width: width, height: height)
                            for op in ops { op.apply(pixels) }
                            for i in 0..<count {
                                let p = row + 3 * Int(at[i])
                                let colour = UInt32(p[0]) << 16 | UInt32(p[1]) << 8 | UInt32(p[2])
                                let out = (quantize(r[i]), quantize(g[i]), quantize(b[i]))
                                p[0] = out.0
                                p[1] = out.1
                                p[2] = out.2
                                table[Self.slot(colour)] = UInt64(colour &+ 1) << 32
                                    | UInt64(out.0) << 16 | UInt64(out.1) << 8 | UInt64(out.2)
                            }
                        }
                    }
                }
            }
        }
    }
}
