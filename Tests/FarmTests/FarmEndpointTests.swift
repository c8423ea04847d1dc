import Testing
@testable import Farm

/// Endpoints as people type them: HOST:PORT is TCP; anything else says the right form.
struct FarmEndpointTests {
    @Test func hostAndPortAreReadAsTCP() throws {
        #expect(try FarmEndpoint.normalized("127.0.0.1:17700").get() == "tcp://127.0.0.1:17700")
        #expect(try FarmEndpoint.normalized(":7700").get() == "tcp://127.0.0.1:7700")
        #expect(try FarmEndpoint.normalized("farm.internal:7700").get() == "tcp://farm.internal:7700")
        #expect(try FarmEndpoint.normalized("tcp://0.0.0.0:7700").get() == "tcp://0.0.0.0:7700")
        #expect(try FarmEndpoint.normalized("ipc:///tmp/c.ipc").get() == "ipc:///tmp/c.ipc")
    }

    @Test func otherFormsAreRefusedWithTheRightOne() {
        for bad in ["http://127.0.0.1:7700", "127.0.0.1", "host:0", "host:99999", ""] {
            guard case .failure(let error) = FarmEndpoint.normalized(bad) else {
                Issue.record("'\(bad)' was accepted")
                continue
            }
            #expect(error.message.contains("tcp://"), "\(bad): \(error.message)")
        }
    }
}
