import Testing
@testable import FarmHTTP

/// RFC 9110 §14.1.2 and §14.4 as docs/api.md uses them: one range of a download, one part
/// of an upload.
struct ByteRangeTests {
    @Test func downloadRanges() throws {
        #expect(try ByteRange.parse("bytes=100-1099", size: 5000) == ByteRange(first: 100, last: 1099))
        #expect(try ByteRange.parse("bytes=4000-", size: 5000) == ByteRange(first: 4000, last: 4999))
        #expect(try ByteRange.parse("bytes=-10", size: 5000) == ByteRange(first: 4990, last: 4999))
        #expect(try ByteRange.parse("bytes=-9000", size: 5000) == ByteRange(first: 0, last: 4999))
        #expect(try ByteRange.parse("bytes=0-99999", size: 5000) == ByteRange(first: 0, last: 4999))
        // Not ours to honour: the whole file is sent.
        for header in [nil, "bytes=5-1", "bytes=0-1,4-5", "items=0-1", "bytes=x-1", "bytes=-0"] {
            #expect(try ByteRange.parse(header, size: 5000) == nil, "\(header ?? "nil")")
        }
        #expect(throws: ByteRange.Unsatisfiable.self) { try ByteRange.parse("bytes=5000-", size: 5000) }
        #expect(throws: ByteRange.Unsatisfiable.self) { try ByteRange.parse("bytes=-1", size: 0) }
    }

    @Test func uploadParts() throws {
        #expect(try ContentRange.parse("bytes 0-999/2000") == ContentRange(first: 0, last: 999, total: 2000))
        #expect(try ContentRange.parse("bytes 0-999/2000").count == 1000)
        for header in ["bytes 0-2000/2000", "bytes 10-5/20", "bytes 0-1/*", "bytes=0-1/2", "bytes -1-1/2", "bytes 0-1"] {
            #expect(throws: ContentRange.Invalid.self, "\(header)") { try ContentRange.parse(header) }
        }
    }
}
