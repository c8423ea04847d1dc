import ReelTestSupport
import SessionKit
import Testing

/// The EXIF orientation reader (docs/geometry.md, "Photos: EXIF orientation") on JPEG headers
/// built here byte by byte from the EXIF layout: SOI, segments, APP1 "Exif\0\0", a TIFF
/// header in either byte order, IFD0 with 12-byte entries.
@Suite struct JPEGExifTests {
    /// A JPEG header whose IFD0 holds `entries` (tag, type, count, value), after `before` segments.
    static func jpeg(bigEndian: Bool, entries: [(UInt16, UInt16, UInt32, UInt16)], before: [[UInt8]] = []) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] { bigEndian ? u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF)) : u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) }
        var tiff: [UInt8] = (bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]) + u16(42) + u32(8) + u16(UInt16(entries.count))
        for (tag, type, count, value) in entries { tiff += u16(tag) + u16(type) + u32(count) + u16(value) + [0, 0] }
        tiff += u32(0)
        let app1 = Array("Exif\0\0".utf8) + tiff
        let length = app1.count + 2
        var bytes: [UInt8] = [0xFF, 0xD8]
        for segment in before { bytes += segment }
        bytes += [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + app1
        return bytes + [0xFF, 0xDA, 0, 2, 0x12, 0x34, 0xFF, 0xD9]
    }

    static let app0: [UInt8] = [0xFF, 0xE0, 0, 16] + Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0]

    @Test(arguments: [false, true])
    func everyOrientationIsReadInEitherByteOrder(bigEndian: Bool) {
        for value in UInt16(1)...8 {
            let bytes = Self.jpeg(bigEndian: bigEndian, entries: [(0x010F, 2, 4, 0x4142), (0x0112, 3, 1, value), (0x0131, 2, 2, 0)],
                                  before: [Self.app0])
            #expect(JPEGExif.orientation(in: bytes) == Int(value))
        }
    }

    @Test func missingOrMalformedOrientationReadsAsNone() {
        #expect(JPEGExif.orientation(in: Self.jpeg(bigEndian: false, entries: [(0x010F, 2, 4, 0)])) == nil)
        #expect(JPEGExif.orientation(in: Self.jpeg(bigEndian: false, entries: [(0x0112, 3, 1, 9)])) == nil)   // not an orientation
        #expect(JPEGExif.orientation(in: Self.jpeg(bigEndian: false, entries: [(0x0112, 4, 1, 6)])) == nil)   // LONG, not SHORT
        #expect(JPEGExif.orientation(in: [0x89, 0x50, 0x4E, 0x47]) == nil)                                     // a PNG
        // EXIF after the image data is not a header: the reader stops at SOS.
        let late: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDA, 0, 2] + Array(Self.jpeg(bigEndian: false, entries: [(0x0112, 3, 1, 6)]).dropFirst(2))
        #expect(JPEGExif.orientation(in: late) == nil)
    }

    /// Every prefix and a thousand seeded corruptions of a valid header: an answer or
    /// none, never a trap (an out-of-bounds index would crash the test process).
    @Test func truncatedAndCorruptedHeadersNeverCrash() {
        let valid = Self.jpeg(bigEndian: true, entries: [(0x0112, 3, 1, 6)], before: [Self.app0])
        #expect(JPEGExif.orientation(in: valid) == 6)
        for length in 0..<valid.count {
            let value = JPEGExif.orientation(in: Array(valid.prefix(length)))
            #expect(value == nil || value == 6)
        }
        var mutator = SeededMutator(seed: 12)
        for _ in 0..<1000 {
            var bytes = valid
            for _ in 0...mutator.below(4) { bytes[mutator.below(bytes.count)] = UInt8(truncatingIfNeeded: mutator.next()) }
            if let value = JPEGExif.orientation(in: bytes) { #expect((1...8).contains(value)) }
        }
    }
}
