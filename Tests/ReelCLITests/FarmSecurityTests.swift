import Foundation
import ReelTestSupport
import Testing

/// CURVE on the farm's socket (docs/operations.md): encrypted, and only allow-listed keys get in.
@Suite(.serialized) struct FarmSecurityTests {
    @Test func onlyAuthorizedKeysReachACurveCoordinator() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 2)
        for name in ["coordinator", "worker", "client", "stranger"] {
            let r = try TestEnvironment.reel(["keygen", farm.path(name)])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let key = { (name: String) in try String(contentsOfFile: farm.path(name + ".pub"), encoding: .utf8) }
        _ = try TestEnvironment.write("# workers\n\(try key("worker").trimmed) worker\n# people\n\(try key("client").trimmed) client", to: "authorized", in: farm.dir)
        // A key may itself contain "#": only lines that are not keys are comments.
        try farm.startCoordinator(["--curve-key", farm.path("coordinator.key"), "--authorized-keys", farm.path("authorized")])
        let serverKey = ["--server-key", farm.path("coordinator.pub")]
        try farm.startWorker("a", ["--curve-key", farm.path("worker.key")] + serverKey)

        // An authorized client renders through the authorized worker; the bytes are the usual ones.
        let client = ["--curve-key", farm.path("client.key")] + serverKey
        let submitted = try farm.reel(["submit", "s.json", "--wait", "-o", "secure.mp4"] + FarmFixture.shortGOP + client)
        #expect(submitted.status == 0, "\(submitted.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: farm.path("secure.mp4"))) == (try farm.reference()))

        // A key that is not on the list is refused at the handshake, quickly and by name.
        let stranger = try farm.reel(["workers", "--curve-key", farm.path("stranger.key")] + serverKey)
        #expect(stranger.status == 1)
        #expect(stranger.stderr.contains("refused this client's CURVE key"))
        #expect(farm.log("coordinator.log").contains("refused a connection: CURVE key \(try key("stranger").trimmingCharacters(in: .whitespacesAndNewlines))"))
    }

    /// Two client keys: the second names the first's media by content id. The coordinator
    /// has the files, but tells the second key nothing of them until it has sent their
    /// bytes (its `reel submit` does, as for any missing file), then renders its job.
    @Test func aClientKeyUsesOnlyMediaItHasSent() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        for name in ["coordinator", "worker", "alice", "bob", "carol"] { _ = try TestEnvironment.reel(["keygen", farm.path(name)]) }
        let key = { (name: String) in try String(contentsOfFile: farm.path(name + ".pub"), encoding: .utf8).trimmed }
        _ = try TestEnvironment.write("\(try key("worker")) worker\n\(try key("alice")) client alice\n\(try key("bob")) client bob\n"
                                      + "\(try key("carol")) client carol\n", to: "authorized", in: farm.dir)
        try farm.startCoordinator(["--curve-key", farm.path("coordinator.key"), "--authorized-keys", farm.path("authorized")])
        let serverKey = ["--server-key", farm.path("coordinator.pub")]
        try farm.startWorker("a", ["--curve-key", farm.path("worker.key")] + serverKey)
        for name in ["alice", "bob"] {
            let r = try farm.reel(["submit", "s.json", "--wait", "-o", "\(name).mp4"] + FarmFixture.shortGOP
                                  + ["--curve-key", farm.path("\(name).key")] + serverKey)
            #expect(r.status == 0, "\(name): \(r.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: farm.path("bob.mp4"))) == (try farm.reference()))
        let log = farm.log("coordinator.log")
        // Alice's uploads stored the files; Bob had to send the same bytes before he could use them.
        #expect(!log.contains("\(try key("alice")) sent"), "\(log.suffix(800))")
        #expect(log.components(separatedBy: "\(try key("bob")) sent").count == 3, "\(log.suffix(800))")
        // Clearing pictures: only of media the key has sent. Carol has sent nothing.
        let carol = try farm.reel(["thumbnail", "s.json", "--invalidate", "--curve-key", farm.path("carol.key")] + serverKey)
        #expect(carol.status == 2 && carol.stderr.contains("has not sent"), "\(carol.status): \(carol.stderr)")
        let alice = try farm.reel(["thumbnail", "s.json", "--invalidate", "--curve-key", farm.path("alice.key")] + serverKey)
        #expect(alice.status == 0, "\(alice.stderr)")
    }

    @Test func keysAreCheckedBeforeAnythingRuns() throws {
        let dir = try TestEnvironment.scratchDirectory()
        #expect(try TestEnvironment.reel(["keygen", "k"], in: dir).status == 0)
        // Never overwritten.
        let again = try TestEnvironment.reel(["keygen", "k"], in: dir)
        #expect(again.status == 2 && again.stderr.contains("exists"))
        let mode = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("k.key").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        _ = try TestEnvironment.write("not a key\n", to: "list", in: dir)
        let cases: [([String], String)] = [
            (["coordinator", "--bind", "tcp://0.0.0.0:7799", "--state-dir", "st"], "not a loopback address"),
            (["coordinator", "--state-dir", "st", "--curve-key", "k.key"], "go together"),
            (["coordinator", "--state-dir", "st", "--curve-key", "k.key", "--authorized-keys", "list"], "list:1: not a 40-character Z85 public key"),
            (["workers", "--curve-key", "k.key"], "--curve-key needs --server-key"),
            (["workers", "--curve-key", "list", "--server-key", "k.pub"], "no valid secret-key"),
        ]
        for (arguments, message) in cases {
            let r = try TestEnvironment.reel(arguments, in: dir)
            #expect(r.status == 2, "\(arguments)")
            #expect(r.stderr.contains(message), "\(arguments): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(arguments): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("st").path))
    }
}

private extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
