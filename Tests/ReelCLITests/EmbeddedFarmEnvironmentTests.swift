import Foundation
import ReelTestSupport
import Testing

/// docs/rendering.md, "Pipeline": `reel render` runs a private farm. A shell set up for a
/// remote farm (`REEL_COORDINATOR`, `REEL_CURVE_KEY`, `REEL_SERVER_KEY` for `reel submit`)
/// must not reach its workers: with the keys they tried a CURVE handshake the private
/// coordinator never answers, and the render waited forever.
@Suite struct EmbeddedFarmEnvironmentTests {
    @Test func aRenderIgnoresTheRemoteFarmsKeysAndEndpointInTheEnvironment() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        for name in ["client", "server"] {
            #expect(try TestEnvironment.reel(["keygen", farm.path(name)]).status == 0)
        }
        var environment = ProcessInfo.processInfo.environment
        environment["REEL_CURVE_KEY"] = farm.path("client.key")
        environment["REEL_SERVER_KEY"] = farm.path("server.pub")
        environment["REEL_COORDINATOR"] = LoopbackPort.endpoint()
        let r = try ProcessRunner.run(TestEnvironment.reel, ["render", "s.json", "-o", "out.mp4", "--workers", "1"] + FarmFixture.shortGOP,
                                      directory: farm.dir, environment: environment, timeout: 120)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: farm.path("out.mp4"))) == farm.reference())
    }
}
