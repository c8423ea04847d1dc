import Foundation

/// A time value with CMTime's fields: `value / timescale` seconds.
///
/// Decodes `{"value": 60, "timescale": 30}` (extra CMTime fields such as `flags` and
/// `epoch` are accepted and ignored) or a plain number of seconds; encodes canonically as
/// `{"value", "timescale"}`.
public struct SessionTime: Hashable, Sendable, Codable, CustomStringConvertible {
    public var value: Int64
    public var timescale: Int32

    public init(value: Int64, timescale: Int32) {
        self.value = value
        self.timescale = timescale
    }

    /// `nil` when `seconds` is not finite or has no fraction with a denominator ≤ 1,000,000.
    public init?(seconds: Double) {
        guard let r = Rational.approximating(seconds), let ts = Int32(exactly: r.denominator) else { return nil }
        self.init(value: r.numerator, timescale: ts)
    }

    public init(_ rational: Rational) {
        // Validated times have small denominators; clamp rather than trap on absurd ones.
        if let ts = Int32(exactly: rational.denominator) {
            self.init(value: rational.numerator, timescale: ts)
        } else if let approximate = SessionTime(seconds: rational.doubleValue) {
            self = approximate
        } else {
            self.init(value: 0, timescale: 1)
        }
    }

    /// The exact value; `nil` when the timescale is not positive.
    public var rational: Rational? {
        timescale > 0 ? Rational(value, Int64(timescale)) : nil
    }

    public var seconds: Double { timescale == 0 ? .nan : Double(value) / Double(timescale) }

    public var description: String { formatSeconds(seconds) }

    private enum CodingKeys: String, CodingKey { case value, timescale }

    public init(from decoder: any Decoder) throws {
        if let c = try? decoder.container(keyedBy: CodingKeys.self) {
            value = try Self.integer(Int64.self, .value, in: c)
            timescale = try Self.integer(Int32.self, .timescale, in: c)
            guard timescale > 0 else {
                throw DecodingError.dataCorruptedError(forKey: .timescale, in: c,
                    debugDescription: "timescale must be positive, got \(timescale)")
            }
            return
        }
        let single = try decoder.singleValueContainer()
        guard let seconds = try? single.decode(Double.self) else {
            throw DecodingError.dataCorruptedError(in: single,
                debugDescription: "expected seconds (a finite number) or {\"value\", \"timescale\"}")
        }
        guard let time = SessionTime(seconds: seconds) else {
            throw DecodingError.dataCorruptedError(in: single,
                debugDescription: "\(seconds) s is not a representable time (use at most 1e12 s)")
        }
        self = time
    }

    /// Foundation reports an out-of-range integer as "not valid JSON" with no path; read
    /// it as a number first so the error names the field and the value.
    private static func integer<T: FixedWidthInteger & Decodable>(
        _ type: T.Type, _ key: CodingKeys, in c: KeyedDecodingContainer<CodingKeys>) throws -> T {
        if let value = try? c.decode(T.self, forKey: key) { return value }
        let number = try c.decode(Double.self, forKey: key)
        throw DecodingError.dataCorruptedError(forKey: key, in: c,
            debugDescription: "\(formatNumber(number)) is not an integer in \(T.min) … \(T.max)")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(value, forKey: .value)
        try c.encode(timescale, forKey: .timescale)
    }
}

/// Seconds for messages: at least one decimal, at most three ("3.0 s", "4.2 s", "0.033 s").
public func formatSeconds(_ s: Double) -> String {
    guard s.isFinite else { return "\(s) s" }
    var text = String(format: "%.3f", s)
    while text.hasSuffix("0") && !text.hasSuffix(".0") { text.removeLast() }
    return text + " s"
}

/// Numbers for messages: integers without a fraction, others with up to 4 decimals.
public func formatNumber(_ x: Double) -> String {
    guard x.isFinite else { return "\(x)" }
    if abs(x) >= 1e15 { return String(format: "%g", x) }
    if x == x.rounded() { return String(Int64(x)) }
    var text = String(format: "%.4f", x)
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text
}
