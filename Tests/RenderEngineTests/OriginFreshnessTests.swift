import Testing
@testable import RenderEngine

/// How long an origin's yes to a credential may be trusted by the workers' shared picture
/// cache (docs/operations.md, "Sources by URL"): a shared cache's lifetime first, never
/// past an hour, and nothing under `no-cache`, `no-store` or without a lifetime.
@Suite struct OriginFreshnessTests {
    @Test func theLifetimeIsTheSharedCachesThenTheAnswersAtMostAnHour() {
        #expect(OriginClient.freshness(nil) == 0)
        #expect(OriginClient.freshness("public") == 0)
        #expect(OriginClient.freshness("max-age=60") == 60)
        #expect(OriginClient.freshness("Public, Max-Age=\"90\"") == 90)
        #expect(OriginClient.freshness("max-age=60, s-maxage=5") == 5)
        #expect(OriginClient.freshness("max-age=86400") == 3600)
        #expect(OriginClient.freshness("max-age=600, no-cache") == 0)
        #expect(OriginClient.freshness("no-store, max-age=600") == 0)
        #expect(OriginClient.freshness("max-age=-5") == 0)
        #expect(OriginClient.freshness("max-age=soon") == 0)
    }
}
