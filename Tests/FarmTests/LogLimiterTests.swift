import Testing
@testable import Farm

@Suite struct LogLimiterTests {
    /// A burst writes one line per interval and then says how many it held back.
    @Test func aBurstIsOneLineAnIntervalWithACount() {
        var limiter = LogLimiter(interval: 5)
        #expect(limiter.allow("malformed", now: 0) == (true, 0))
        for t in 1...4999 { #expect(limiter.allow("malformed", now: Double(t) / 1000).write == false) }
        #expect(limiter.allow("other kind", now: 1).write)
        #expect(limiter.allow("malformed", now: 5.0) == (true, 4999))
        #expect(limiter.allow("malformed", now: 5.1).write == false)
        #expect(limiter.allow("malformed", now: 20) == (true, 1))
    }
}
