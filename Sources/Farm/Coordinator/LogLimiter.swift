/// At most one log line per kind of event per interval, with a count of the ones held
/// back: a burst of 5,000 malformed messages is a line every few seconds, not 5,000.
struct LogLimiter {
    let interval: Double
    private var last: [String: (at: Double, suppressed: Int)] = [:]

    init(interval: Double = 5) { self.interval = interval }

    /// Whether to write a line of `kind` at `now`, and how many were held back since the last.
    mutating func allow(_ kind: String, now: Double) -> (write: Bool, suppressed: Int) {
        if let previous = last[kind], now - previous.at < interval {
            last[kind] = (previous.at, previous.suppressed + 1)
            return (false, 0)
        }
        let suppressed = last[kind]?.suppressed ?? 0
        last[kind] = (now, 0)
        return (true, suppressed)
    }
}
