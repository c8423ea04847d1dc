import SessionKit

/// Remembers what a chain of per-pixel stages made of recent 8-bit colours, so a colour
/// seen again costs one table read instead of the chain (docs/filters.md, "How the engine
/// runs a chain"). Exact: a remembered value is the chain's own result for that colour,
/// so pictures are the same bits with or without it; only position-independent stages
/// may be remembered.
///
/// Direct-mapped, 4 bytes a slot. A colour's 24 bits are mixed by a bijection (times an
/// odd number, modulo 2²⁴); the top `slotBits` of the mix choose the slot and the rest are
/// its tag, so slot and tag together name exactly one colour. A slot holds
/// `(tag + 1) << 24 | result`, 0 when empty: 2¹⁸ slots are 1 MB, which stays in the
/// processor's caches better than 8-byte slots holding the whole colour did. Used by one
/// thread at a time.
final class ColourMemo {
    static let slotBits = 18
    private let table = ScratchBuffer<UInt32>(count: 1 << slotBits, zero: 0)
    /// The chain whose results these are.
    let owner: AnyObject

    init(owner: AnyObject) {
        self.owner = owner
    }

    /// Runs `ops` over one planar row in place: colours in the memo are written from it;
    /// the others are gathered into `scratch`'s float planes (through `leading`), run
    /// through the chain as one short row, and remembered. The key and slot of every
    /// pixel, and the unpacking of the results, are computed lane by lane (vectorised);
    /// only the look-ups are one at a time.
    func apply(_ ops: [any PixelOperation], leading: UnsafePointer<Float>, row: PlanarRGBRow, y: Int, height: Int,
               scratch: ChainRowScratch) {
        let width = row.width
        let r = row.r, g = row.g, b = row.b
        let tags = scratch.tags.pointer, slots = scratch.slots.pointer, results = scratch.results.pointer
        let fr = scratch.r.pointer, fg = scratch.g.pointer, fb = scratch.b.pointer, at = scratch.missed.pointer
        let memo = table.pointer
        let tagBits = UInt32(24 - Self.slotBits)
        for x in 0..<width {
            let colour = UInt32(r[x]) << 16 | UInt32(g[x]) << 8 | UInt32(b[x])
            let mixed = (colour &* 0x9E37_79B1) & 0xFF_FFFF
            slots[x] = mixed >> tagBits
            tags[x] = ((mixed & ((1 << tagBits) - 1)) &+ 1) << 24
        }
        // Without a branch: a miss only advances `count`, so look-ups never wait on a
        // mispredicted jump and their cache misses overlap.
        var count = 0
        for x in 0..<width {
            let entry = memo[Int(slots[x])]
            results[x] = entry & 0xFF_FFFF
            at[count] = Int32(x)
            count &+= entry & 0xFF00_0000 == tags[x] ? 0 : 1
        }
        for i in 0..<count {
            let x = Int(at[i])
            fr[i] = leading[Int(r[x])]
            fg[i] = leading[Int(g[x])]
            fb[i] = leading[Int(b[x])]
        }
        if count > 0 {
            let pixels = PixelRow(r: fr, g: fg, b: fb, count: count, y: y, width: width, height: height)
            for op in ops { op.apply(pixels) }
            let computed = scratch.computed.pointer
            for i in 0..<count {
                computed[i] = UInt32(quantize(fr[i])) << 16 | UInt32(quantize(fg[i])) << 8 | UInt32(quantize(fb[i]))
            }
            for i in 0..<count {
                let x = Int(at[i])
                results[x] = computed[i]
                memo[Int(slots[x])] = tags[x] | computed[i]
            }
        }
        for x in 0..<width {
            let result = results[x]
            r[x] = UInt8(truncatingIfNeeded: result >> 16)
            g[x] = UInt8(truncatingIfNeeded: result >> 8)
            b[x] = UInt8(truncatingIfNeeded: result)
        }
    }
}

/// The working rows of a chain run one row at a time, for pictures `width` pixels wide.
final class ChainRowScratch {
    let width: Int
    /// Float planes of the row (or of the memo's missed pixels).
    let r: ScratchBuffer<Float>, g: ScratchBuffer<Float>, b: ScratchBuffer<Float>
    /// The memo's per-pixel tag, slot, result, and the columns it missed.
    let tags: ScratchBuffer<UInt32>, slots: ScratchBuffer<UInt32>, results: ScratchBuffer<UInt32>
    let missed: ScratchBuffer<Int32>
    /// The chain's 8-bit results for the missed pixels, packed as the memo keeps them.
    let computed: ScratchBuffer<UInt32>

    init(width: Int) {
        self.width = width
        r = ScratchBuffer(count: width, zero: 0)
        g = ScratchBuffer(count: width, zero: 0)
        b = ScratchBuffer(count: width, zero: 0)
        tags = ScratchBuffer(count: width, zero: 0)
        slots = ScratchBuffer(count: width, zero: 0)
        results = ScratchBuffer(count: width, zero: 0)
        missed = ScratchBuffer(count: width, zero: 0)
        computed = ScratchBuffer(count: width, zero: 0)
    }
}
