import Foundation
import ReelTestSupport
import Testing

/// docs/api.md, "Clients": the Python package (clients/python) against a real coordinator
/// and worker behind the connection-dropping proxy, as ReelFarmClientTests does for Swift;
/// `mypy --strict` passes on it, and its models match docs/api.yaml.
@Suite struct PythonClientTests {
    static var package: URL { TestEnvironment.packageRoot.appendingPathComponent("clients/python") }

    static func python(_ arguments: [String], in directory: URL? = nil, timeout: Double = 300) throws -> ProcessResult {
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = package.path   // the package in this tree, not an installed copy
        return try ProcessRunner.run(try #require(ProcessRunner.which("python3")), arguments, directory: directory,
                                     environment: environment, timeout: timeout)
    }

    @Test func theClientIsTypedAndMatchesTheSpec() throws {
        let mypy = try Self.python(["-m", "mypy", "--strict", Self.package.appendingPathComponent("reelfarm").path], in: Self.package)
        #expect(mypy.status == 0 && mypy.stdout.contains("no issues found"), "make test-deps installs mypy: \(mypy.stdout) \(mypy.stderr)")
        let spec = try Self.python([Self.package.appendingPathComponent("tests/check_spec.py").path,
                                    TestEnvironment.packageRoot.appendingPathComponent("docs/api.yaml").path])
        #expect(spec.status == 0, "\(spec.stdout) \(spec.stderr)")
    }

    @Test func aBackEndExportsThroughDroppedConnectionsAndGetsReelRendersBytes() throws {
        let (farm, api, proxied, state, proxy) = try ReelFarmClientTests.farmBehindProxy(cuts: ["--cut-put", "2:20000", "--cut-events", "1"])
        defer { ReelFarmClientTests.stop(proxy) }
        let reference = try farm.reference()
        let run = try Self.python([Self.package.appendingPathComponent("tests/farm_check.py").path, proxied, api,
                                   ReelFarmClientTests.alice, ReelFarmClientTests.bob, farm.path("s.json"), farm.path("a.mp4"),
                                   farm.path("b.mp4"), farm.path("python.mp4"), farm.path("events.json")], in: farm.dir)
        #expect(run.status == 0, "\(run.stdout) \(run.stderr.suffix(2000))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: farm.path("python.mp4"))) == reference)
        let counts = try #require(ReelFarmClientTests.proxyState(state))
        #expect(counts["cuts"] as? [String] == ["put", "events"], "\(counts)")
        let sizes = try ["a.mp4", "b.mp4"].reduce(0) { $0 + ((try FileManager.default.attributesOfItem(atPath: farm.path($1))[.size] as? Int) ?? 0) }
        #expect(counts["putBodyBytes"] as? Int == sizes + 20_000, "only the missing bytes again: \(counts)")
        let ids = (counts["lastEventIDs"] as? [Any]) ?? []
        #expect(ids.count >= 2 && ids[1] is String, "\(ids)")
        let events = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: farm.path("events.json")))) as? [[Any]])
        let rank = ["queued": 0, "rendering": 1, "assembling": 2, "done": 3, "failed": 3, "cancelled": 3]
        let orders = events.map { [rank[$0[0] as? String ?? ""] ?? -1, $0[1] as? Int ?? -1, $0[2] as? Int ?? -1] }
        #expect(zip(orders, orders.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) }, "repeated or backwards: \(orders)")
        #expect(orders.last?.first == 3)
    }
}
