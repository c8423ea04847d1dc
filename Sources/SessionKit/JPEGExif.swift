/// The EXIF `Orientation` tag (0x0112) of a JPEG, read from its header segments without
/// decoding the picture (docs/geometry.md, "Photos: EXIF orientation"). A pure function of the
/// bytes: anything malformed — a segment running past the end, an offset outside the TIFF
/// block, a wrong type — reads as "no orientation", never as a crash.
public enum JPEGExif {
    /// Bytes the reader needs at most: every segment before the first image data fits,
    /// since an APP1 segment holds at most 65,533 bytes.
    public static let headerLimit = 1 << 18

    public static func orientation(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var at = 2
        while at + 4 <= bytes.count {
            guard bytes[at] == 0xFF else { return nil }
            let marker = bytes[at + 1]
            if marker == 0xFF { at += 1; continue }                      // fill byte
            if marker == 0xDA || marker == 0xD9 { return nil }           // image data or end: no EXIF before it
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            let body = at + 4, end = at + 2 + length
            guard length >= 2, end <= bytes.count else { return nil }
            if marker == 0xE1, end - body >= 6, Array(bytes[body..<body + 6]) == Array("Exif\0\0".utf8),
               let value = tiffOrientation(Array(bytes[(body + 6)..<end])) {
                return value
            }
            at = end
        }
        return nil
    }

    /// The orientation entry of IFD0 in a TIFF block (either byte order).
    static func tiffOrientation(_ tiff: [UInt8]) -> Int? {
        guard tiff.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: return nil
        }
        func u16(_ i: Int) -> Int? {
            guard i >= 0, i + 2 <= tiff.count else { return nil }
            return bigEndian ? Int(tiff[i]) << 8 | Int(tiff[i + 1]) : Int(tiff[i + 1]) << 8 | Int(tiff[i])
        }
        func u32(_ i: Int) -> Int? {
            guard let high = u16(bigEndian ? i : i + 2), let low = u16(bigEndian ? i + 2 : i) else { return nil }
            return high << 16 | low
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for entry in 0..<count {
            let e = ifd + 2 + 12 * entry
            guard let tag = u16(e) else { return nil }
            guard tag == 0x0112 else { continue }
            // SHORT (3), one value, kept in the first two bytes of the value field.
            guard u16(e + 2) == 3, u32(e + 4) == 1, let value = u16(e + 8), (1...8).contains(value) else { return nil }
            return value
        }
        return nil
    }
}
