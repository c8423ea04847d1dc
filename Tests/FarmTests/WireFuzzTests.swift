import Foundation
import ReelTestSupport
import RenderEngine
import SessionKit
import Testing
@testable import Farm

/// Mutated wire messages through the parser and every body decoder, and mutated LZ4
/// frames through the decompressor: each is taken or refused with an error, none crashes.
struct WireFuzzTests {
    static func samples() throws -> [WireMessage] {
        return [
            try WireMessage(.hello, Hello(workerID: "w", host: "h", slots: 2, capabilities: ["video"], engineVersion: EngineVersion.engine)),
            try WireMessage(.heartbeat, Heartbeat(busy: 1, draining: true)),
            try WireMessage(.chunk, ChunkReady(jobID: "j", shard: 3, attempt: 1, sha256: String(repeating: "a", count: 64), size: 10, millis: 5)),
            try WireMessage(.failed, ShardFailed(jobID: "j", shard: 3, attempt: 1, code: .renderFailed, reason: "x")),
            try WireMessage(.mediaRequest, MediaRequest(contentID: "sha256:" + String(repeating: "0", count: 64), offset: 0, length: 4096)),
            try WireMessage(.submit, Submit(session: #"{"video": {"videoSegments": [{"source": "a.mp4"}]}}"#, files: ["a.mp4": "sha256:00"],
                                            paths: [:], settings: EncoderSettings(), priority: 0)),
            try WireMessage(.shard, ShardAssignment(jobID: "j", shard: 1, attempt: 1, spec: try SpecFixtures.clipJob().shard(1),
                                                    paths: ["a.mp4": "/m/a.mp4"])),
            try WireMessage(.shard, ShardAssignment(jobID: "j", shard: 0, attempt: 1, spec: try SpecFixtures.clipJob().shard(0))),
            try WireMessage(.fetch, FetchRequest(jobID: "j", offset: 0, length: 10, part: .output)),
        ]
    }

    /// Decodes the header as every body type a peer could claim it to be.
    static func decodeAll(_ message: WireMessage) {
        _ = try? message.decode(Hello.self)
        _ = try? message.decode(Heartbeat.self)
        _ = try? message.decode(ChunkReady.self)
        _ = try? message.decode(ShardFailed.self)
        _ = try? message.decode(MediaRequest.self)
        _ = try? message.decode(Submit.self)
        if let assignment = try? message.decode(ShardAssignment.self) {
            // A worker checks a spec before using any of it; the recipe is hashed from it.
            _ = try? assignment.spec.check()
            _ = try? assignment.spec.recipeKey()
            _ = assignment.spec.assets
        }
        _ = try? message.decode(FetchRequest.self)
        _ = try? message.decode(Upload.self)
        _ = try? message.decode(StillsRequest.self)
    }

    @Test func mutatedMessagesAreParsedOrRefusedNeverCrash() throws {
        var mutator = SeededMutator(seed: 0x5EED_0001)
        var parsed = 0, refused = 0
        for sample in try Self.samples() {
            for round in 0..<600 {
                let header = mutator.mutate(sample.header(), times: 1 + round % 3)
                do {
                    let message = try WireMessage.parse([header, Data(repeating: 1, count: round % 5)])
                    parsed += 1
                    Self.decodeAll(message)
                } catch let error as FarmError where error.code == .versionMismatch {
                    refused += 1
                } catch let error as FarmError where error.code == .malformed {
                    #expect(!error.description.isEmpty)
                    refused += 1
                }
            }
        }
        #expect(parsed > 100 && refused > 100, "parsed \(parsed), refused \(refused)")
    }

    @Test func mutatedCompressedChunksAreRejectedNotTrusted() throws {
        var mutator = SeededMutator(seed: 0x5EED_0002)
        let original = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 * 7 / 13) })
        let compressed = Data(try LZ4Frame.compress(original).bytes)
        var rejected = 0
        for round in 0..<2000 {
            let input = mutator.mutate(compressed, times: 1 + round % 3)
            if let bytes = try? LZ4Frame.decompress(input, limit: 1 << 20) {
                // Accepted only if it still says what it said (the frame's content checksum).
                #expect(bytes == original, "round \(round)")
            } else {
                rejected += 1
            }
        }
        #expect(rejected > 1500)
    }
}
