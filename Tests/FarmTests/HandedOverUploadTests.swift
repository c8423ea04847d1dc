import Foundation
import RenderEngine
import SessionKit
import ReelTestSupport
import Synchronization
import Testing
@testable import Farm

/// A whole upload handed over by path (`adopt`; docs/protocol.md, "Uploads"): taken only from
/// the API's folder, hashed once by the coordinator and moved into its media; anything else a
/// peer names is refused and left as it was.
@Suite struct HandedOverUploadTests {
    @Test func onlyAFileInTheAPIsFolderIsTakenAndOnlyIfItsBytesAreItsID() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let options = Coordinator.Options.scratch(in: dir)
        let folder = options.apiUploads
        let media = options.stateDirectory.appendingPathComponent("media")
        let coordinator = try CoordinatorThread(options)
        defer { coordinator.stop() }
        let client = try FarmClient(endpoint: coordinator.endpoint)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("owners/x"), withIntermediateDirectories: true)

        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let id = ContentID(hex: Digest.sha256(bytes))!.description
        let hex = String(id.dropFirst("sha256:".count))
        func refusal(_ path: URL) -> FarmErrorCode? {
            do {
                _ = try client.adopt(path, contentID: id, holder: nil)
                return nil
            } catch let error as FarmError {
                return error.code
            } catch {
                return .internal
            }
        }

        // Outside the folder, through a link in it, or climbing out of it: refused, untouched.
        let outside = dir.appendingPathComponent("secret.bin")
        try bytes.write(to: outside)
        let link = folder.appendingPathComponent("link.part")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)
        let climbing = URL(fileURLWithPath: folder.path + "/owners/x/../../../secret.bin")
        for path in [outside, link, climbing] {
            #expect(refusal(path) == .invalidInput, "\(path.path)")
        }
        #expect(try Data(contentsOf: outside) == bytes)
        #expect(!FileManager.default.fileExists(atPath: media.appendingPathComponent(hex).path))

        // Bytes that are not the content id: refused and dropped, nothing stored.
        let forged = folder.appendingPathComponent("owners/x/\(hex).part")
        var wrong = bytes
        wrong[0] ^= 0xFF
        try wrong.write(to: forged)
        #expect(refusal(forged) == .invalidInput)
        #expect(!FileManager.default.fileExists(atPath: forged.path))
        #expect(!FileManager.default.fileExists(atPath: media.appendingPathComponent(hex).path))

        // The right bytes: moved into the media (the same file), then a second copy is only checked.
        try bytes.write(to: forged)
        let first = try client.adopt(forged, contentID: id, holder: "token:alice")
        #expect(first.complete && first.received == bytes.count && first.wasStored == false)
        #expect(try Data(contentsOf: media.appendingPathComponent(hex)) == bytes)
        #expect(!FileManager.default.fileExists(atPath: forged.path))
        #expect(try client.hasMedia(id, holder: "token:alice") && !client.hasMedia(id, holder: "token:bob"))
        try bytes.write(to: forged)
        let again = try client.adopt(forged, contentID: id, holder: "token:bob")
        #expect(again.complete && again.wasStored == true)
        #expect(!FileManager.default.fileExists(atPath: forged.path))
        #expect(try client.hasMedia(id, holder: "token:bob"))
    }
}
