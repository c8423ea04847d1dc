import Foundation
import Testing
@testable import Farm

@Suite struct TransportTests {
    @Test func lz4RoundTripsAndRejectsCorruption() throws {
        let input = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 7 / 3) })
        let compressed = try LZ4Frame.compress(input)
        #expect(compressed.count < input.count)
        let bytes = Data(compressed.bytes)
        #expect(try LZ4Frame.decompress(bytes) == input)
        var corrupt = bytes
        corrupt[corrupt.count / 2] ^= 0xFF
        #expect(throws: LZ4Frame.Failure.self) { try LZ4Frame.decompress(corrupt) }
        #expect(throws: LZ4Frame.Failure.self) { try LZ4Frame.decompress(bytes.prefix(bytes.count - 5)) }
        #expect(throws: LZ4Frame.Failure.self) { try LZ4Frame.decompress(bytes, limit: 1000) }
    }

    @Test func routerAndDealerExchangeMultipartMessagesWithZeroCopyPayloads() throws {
        let context = try ZMQContext()
        let router = try ZMQSocket(context, .router)
        try router.bind("tcp://127.0.0.1:*")
        let dealer = try ZMQSocket(context, .dealer)
        try dealer.connect(router.lastEndpoint)
        let payload = OwnedBuffer(Array(repeating: UInt8(42), count: 1 << 20))
        try dealer.send([.bytes(Data("header".utf8)), .owned(payload)])
        var received: [Data]?
        for _ in 0..<50 where received == nil {
            if try ZMQSocket.poll([router], timeoutMillis: 100)[0] { received = try router.receive() }
        }
        let frames = try #require(received)
        #expect(frames.count == 3)   // identity, header, payload
        #expect(frames[1] == Data("header".utf8))
        #expect(frames[2].count == 1 << 20 && frames[2].allSatisfy { $0 == 42 })
        // ROUTER_MANDATORY: sending to an unknown peer is an error, not a silent drop.
        #expect(throws: ZMQError.self) { try router.send([.bytes(Data("nobody".utf8)), .bytes(Data("x".utf8))]) }
        router.close()
        dealer.close()
    }

    @Test func oversizedMessagesAreRefusedByTheReceiver() throws {
        #expect(ZMQSocket.maximumMessageSize == 64 << 20)
    }

    @Test func protocolHeadersRoundTripAndOtherVersionsAreNamed() throws {
        let message = try WireMessage(.heartbeat, Heartbeat(busy: 2), payload: [Data([1, 2, 3])])
        let frames = [message.header()] + message.payload
        let parsed = try WireMessage.parse(frames)
        #expect(parsed.type == .heartbeat)
        #expect(try parsed.decode(Heartbeat.self).busy == 2)
        #expect(parsed.payload == [Data([1, 2, 3])])
        let foreign = Data(#"{"v": 7, "type": "hello", "body": {}}"#.utf8)
        do {
            _ = try WireMessage.parse([foreign])
            Issue.record("a version 7 message was accepted")
        } catch let mismatch as FarmError {
            #expect(mismatch.code == .versionMismatch)
            #expect(mismatch.message.contains("peer speaks version 7"))
        }
        for junk in [Data("junk".utf8), Data(#"{"v": \#(WireProtocol.version), "type": "bogus"}"#.utf8)] {
            do {
                _ = try WireMessage.parse([junk])
                Issue.record("junk was parsed")
            } catch let error as FarmError {
                #expect(error.code == .malformed)
            }
        }
    }
}
