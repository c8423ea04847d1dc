import Foundation
import ReelTestSupport
import Testing
@testable import Farm

struct CurveKeysTests {
    @Test func keyFilesRoundTripAndAPublicKeyMustBelongToItsSecret() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let name = dir.appendingPathComponent("node").path
        let keys = try CurveKeyPair.generate()
        try keys.write(name: name)
        #expect(try CurveKeyPair.load(path: name + ".key") == keys)
        #expect(try CurveKeyPair.publicKey(name + ".pub") == keys.publicKey)
        #expect(try CurveKeyPair.publicKey(keys.publicKey) == keys.publicKey)
        #expect(throws: CurveKeyError.self) { try keys.write(name: name) }
        let other = try CurveKeyPair.generate()
        let forged = "public-key = \(other.publicKey)\nsecret-key = \(keys.secretKey)\n"
        _ = try TestEnvironment.write(forged, to: "forged.key", in: dir)
        #expect(throws: CurveKeyError.self) { try CurveKeyPair.load(path: dir.appendingPathComponent("forged.key").path) }
    }

    /// Found by the Compose test: `mktemp -d` gave a directory whose `keys/coordinator.pub`
    /// path was 40 characters of valid Z85, and it was taken for the key itself.
    @Test func aFortyCharacterPathToAKeyFileIsReadAsAFile() throws {
        let keys = try CurveKeyPair.generate()
        let base = URL(fileURLWithPath: FileManager.default.temporaryDirectory.path)
        let length = 40 - (base.path + "/").count - "/s.pub".count
        let dir = base.appendingPathComponent(String(repeating: "k", count: max(1, length)))
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.pub").path
        try (keys.publicKey + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(path.count == 40)
        #expect(try CurveKeyPair.publicKey(path) == keys.publicKey)
    }

    @Test func allowListGivesEachKeyOneRoleAndSkipsComments() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let withHash = String(repeating: "0000#", count: 8)   // '#' is a Z85 digit
        let plain = try CurveKeyPair.generate().publicKey
        let boss = try CurveKeyPair.generate().publicKey
        let path = try TestEnvironment.write("# render nodes\n\n\(withHash) worker node-1\n  \(plain) client alice\n\(boss) admin\n",
                                             to: "keys", in: dir)
        #expect(try CurveKeyPair.authorizedKeys(path: path) == [withHash: .worker, plain: .client, boss: .admin])
        let cases: [(String, String)] = [
            ("\(plain) client\nnot-a-key\n", "bad:2: not a 40-character Z85 public key"),
            ("\(plain)\n", "bad:1: the key needs a role after it: worker, client, admin"),
            ("\(plain) owner\n", "bad:1: the key needs a role"),
            ("\(plain) client\n\(plain) worker\n", "bad:2: the key is listed already as client"),
            ("# nobody\n", "lists no keys"),
        ]
        for (text, message) in cases {
            let bad = try TestEnvironment.write(text, to: "bad", in: dir)
            #expect { try CurveKeyPair.authorizedKeys(path: bad) } throws: { "\($0)".contains(message) }
        }
    }

    @Test func eachRoleSendsOnlyItsMessagesAndClientsManageOnlyTheirJobs() {
        let workerMessages: [MessageType] = [.hello, .heartbeat, .chunk, .failed, .mediaRequest, .stillsReply]
        let clientMessages: [MessageType] = [.submit, .upload, .status, .watch, .cancel, .fetch, .deleteResult, .workers, .stills,
                                             .invalidate]
        for type in workerMessages {
            #expect(PeerRole.worker.may(send: type) && !PeerRole.client.may(send: type) && !PeerRole.admin.may(send: type), "\(type)")
        }
        for type in clientMessages {
            #expect(!PeerRole.worker.may(send: type) && PeerRole.client.may(send: type) && PeerRole.admin.may(send: type), "\(type)")
        }
        // A file handed over by path: only the HTTP API's admin key (docs/protocol.md, "Uploads").
        #expect(PeerRole.admin.may(send: .adopt) && !PeerRole.client.may(send: .adopt) && !PeerRole.worker.may(send: .adopt))
        // Replies the coordinator sends are never accepted from anyone.
        for type in [MessageType.shard, .welcome, .statusReply, .resultBlock] {
            #expect(PeerRole.allCases.allSatisfy { !$0.may(send: type) }, "\(type)")
        }
        #expect(PeerRole.client.mayManage(jobOwnedBy: "k1", as: "k1"))
        #expect(!PeerRole.client.mayManage(jobOwnedBy: "k1", as: "k2"))
        #expect(!PeerRole.client.mayManage(jobOwnedBy: nil, as: "k2"))
        #expect(PeerRole.admin.mayManage(jobOwnedBy: "k1", as: "k9") && PeerRole.admin.mayManage(jobOwnedBy: nil, as: "k9"))
        #expect(!PeerRole.worker.mayManage(jobOwnedBy: "k1", as: "k1"))
    }

    @Test func zapAdmitsOnlyListedCurveKeys() throws {
        let listed = try CurveKeyPair.generate().publicKey
        let unlisted = try CurveKeyPair.generate().publicKey
        func request(_ mechanism: String, _ key: String?) -> [Data] {
            var frames = [Data("1.0".utf8), Data("7".utf8), Data("reelfarm".utf8), Data("127.0.0.1".utf8), Data(), Data(mechanism.utf8)]
            if let key { frames.append(Self.decode(key)) }
            return frames
        }
        let ok = ZAPAuthenticator.answer(request("CURVE", listed), authorized: [listed])
        #expect(String(decoding: ok.reply[2], as: UTF8.self) == "200")
        #expect(ok.reply[1] == Data("7".utf8))
        let refused = ZAPAuthenticator.answer(request("CURVE", unlisted), authorized: [listed])
        #expect(String(decoding: refused.reply[2], as: UTF8.self) == "400")
        #expect(refused.rejectedKey == unlisted)
        let plain = ZAPAuthenticator.answer(request("NULL", nil), authorized: [listed])
        #expect(String(decoding: plain.reply[2], as: UTF8.self) == "400")
    }

    static func decode(_ z85: String) -> Data {
        // Z85 (ZeroMQ RFC 32) by hand, so the test does not reuse the code under test.
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#")
        let chars = Array(z85)
        var bytes = Data()
        for group in stride(from: 0, to: chars.count, by: 5) {
            var value: UInt32 = 0
            for c in chars[group..<group + 5] { value = value &* 85 &+ UInt32(alphabet.firstIndex(of: c) ?? 0) }
            bytes.append(contentsOf: [UInt8(value >> 24), UInt8((value >> 16) & 0xff), UInt8((value >> 8) & 0xff), UInt8(value & 0xff)])
        }
        return bytes
    }
}
