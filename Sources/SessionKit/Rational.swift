/// An exact rational number, always reduced, with a positive denominator.
///
/// Timeline math (docs/timeline.md) is exact: frame counts and source times are computed on
/// rationals, with products formed in `Int128` so that CMTime-sized operands
/// (Int64 values, Int32 timescales) cannot overflow in between.
public struct Rational: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let numerator: Int64
    public let denominator: Int64

    /// `nil` when the denominator is zero or the reduced value does not fit in Int64.
    public init?(_ numerator: Int64, _ denominator: Int64) {
        guard denominator != 0 else { return nil }
        self.init(reducing: Int128(numerator), Int128(denominator))
    }

    public init(_ integer: Int) {
        numerator = Int64(integer)
        denominator = 1
    }

    public init?(reducing n: Int128, _ d: Int128) {
        guard d != 0 else { return nil }
        var n = n, d = d
        if d < 0 { n = -n; d = -d }
        let g = Rational.gcd(n.magnitude, d.magnitude)
        if g > 1 { n /= Int128(g); d /= Int128(g) }
        guard let num = Int64(exactly: n), let den = Int64(exactly: d) else { return nil }
        numerator = num
        denominator = den
    }

    public static let zero = Rational(0)
    public static let one = Rational(1)

    /// The simplest fraction within 1e-12 (relative) of `x` whose denominator is at most
    /// `maxDenominator`: JSON numbers such as 0.3333333333333333 or 2.5 become 1/3 and
    /// 5/2. `nil` for NaN, infinities and magnitudes beyond 1e12.
    public static func approximating(_ x: Double, maxDenominator: Int64 = 1_000_000) -> Rational? {
        guard x.isFinite, abs(x) <= 1e12 else { return nil }
        if x == x.rounded() { return Rational(Int(x)) }
        // Continued-fraction convergents (h/k) of |x|.
        let sign: Int64 = x < 0 ? -1 : 1
        var value = abs(x)
        var (h0, h1): (Int64, Int64) = (0, 1)
        var (k0, k1): (Int64, Int64) = (1, 0)
        var best = Rational(Int(abs(x).rounded()))
        for _ in 0..<64 {
            let a = value.rounded(.down)
            guard let ai = Int64(exactly: a) else { break }
            let (h2, o1) = ai.multipliedReportingOverflow(by: h1)
            let (k2, o2) = ai.multipliedReportingOverflow(by: k1)
            guard !o1, !o2 else { break }
            let (h, o3) = h2.addingReportingOverflow(h0)
            let (k, o4) = k2.addingReportingOverflow(k0)
            guard !o3, !o4, k <= maxDenominator, let r = Rational(sign * h, k) else { break }
            best = r
            if abs(r.doubleValue - x) <= 1e-12 * max(1, abs(x)) { break }
            (h0, h1, k0, k1) = (h1, h, k1, k)
            let frac = value - a
            guard frac > 1e-15 else { break }
            value = 1 / frac
        }
        return best
    }

    public var doubleValue: Double { Double(numerator) / Double(denominator) }
    public var isZero: Bool { numerator == 0 }
    public var isPositive: Bool { numerator > 0 }

    /// `floor(self)`.
    public var floor: Int64 {
        let q = numerator / denominator
        return (numerator % denominator != 0 && numerator < 0) ? q - 1 : q
    }

    /// `floor(self + 1/2)`: round half up, the rounding docs/timeline.md uses for frame counts.
    public var roundedHalfUp: Int64 {
        let n = 2 * Int128(numerator) + Int128(denominator)
        let d = 2 * Int128(denominator)
        let q = n / d
        let floored = (n % d != 0 && n < 0) ? q - 1 : q
        return Int64(clamping: floored)
    }

    public static func < (l: Rational, r: Rational) -> Bool {
        Int128(l.numerator) * Int128(r.denominator) < Int128(r.numerator) * Int128(l.denominator)
    }

    // Results that do not fit in Int64 (only reachable with absurd inputs that validation
    // rejects first) fall back to the nearest representable approximation.
    private static func make(_ n: Int128, _ d: Int128) -> Rational {
        if let r = Rational(reducing: n, d) { return r }
        return approximating(Double(n) / Double(d)) ?? .zero
    }

    public static func + (l: Rational, r: Rational) -> Rational {
        make(Int128(l.numerator) * Int128(r.denominator) + Int128(r.numerator) * Int128(l.denominator),
             Int128(l.denominator) * Int128(r.denominator))
    }

    public static func - (l: Rational, r: Rational) -> Rational {
        make(Int128(l.numerator) * Int128(r.denominator) - Int128(r.numerator) * Int128(l.denominator),
             Int128(l.denominator) * Int128(r.denominator))
    }

    public static func * (l: Rational, r: Rational) -> Rational {
        make(Int128(l.numerator) * Int128(r.numerator), Int128(l.denominator) * Int128(r.denominator))
    }

    /// Division by zero yields zero; callers divide only by validated, positive values.
    public static func / (l: Rational, r: Rational) -> Rational {
        guard r.numerator != 0 else { return .zero }
        return make(Int128(l.numerator) * Int128(r.denominator), Int128(l.denominator) * Int128(r.numerator))
    }

    public var description: String {
        denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)"
    }

    static func gcd(_ a: UInt128, _ b: UInt128) -> UInt128 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }
}

/// On the wire (a coordinator's probes sent to its workers): `[numerator, denominator]`.
extension Rational: Codable {
    public init(from decoder: Decoder) throws {
        var c = try decoder.unkeyedContainer()
        let n = try c.decode(Int64.self), d = try c.decode(Int64.self)
        guard d > 0, let value = Rational(n, d) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "\(n)/\(d) is not a fraction with a positive denominator")
        }
        self = value
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(numerator)
        try c.encode(denominator)
    }
}
