import Testing
@testable import Farm

@Suite struct TransportLibrariesTests {
    @Test func linksLibzmqWithCurveAndLZ4() {
        // docs/operations.md needs libzmq 4.x built with CURVE; the LZ4 frame API arrived in 1.8.
        #expect(TransportLibraries.zeroMQ.hasPrefix("4."))
        #expect(TransportLibraries.hasCurve)
        let parts = TransportLibraries.lz4.split(separator: ".").compactMap { Int($0) }
        #expect(parts.count == 3 && (parts[0] > 1 || parts[1] >= 8))
    }
}
