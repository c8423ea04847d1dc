/// Transcendental functions from IEEE additions and multiplications only.
///
/// glibc picks `pow`, `sin` and friends by processor (FMA and non-FMA variants may differ
/// in the last bit), and a chunk's bytes must not depend on the worker that rendered it
/// (docs/rendering.md, "Determinism"). These series are accurate to about 1e-15 relative,
/// far below one 8-bit code value, and give the same bits on every x86-64 and ARM machine.
public enum PortableMath {
    private static let ln2 = 0.693_147_180_559_945_309_417_232_121_458
    public static let pi = 3.141_592_653_589_793_238_462_643_383_279

    /// 2^x.
    public static func exp2(_ x: Double) -> Double {
        guard x.isFinite else { return x > 0 ? .infinity : 0 }
        if x > 1023 { return .infinity }
        if x < -1074 { return 0 }
        let n = (x + 0.5).rounded(.down)
        let f = (x - n) * ln2   // |f| ≤ ln2 / 2
        // Taylor series of e^f to degree 14: the next term is below 1e-18.
        var term = 1.0, sum = 1.0
        for k in 1...14 {
            term = term * f / Double(k)
            sum += term
        }
        return scale(sum, by: Int(n))
    }

    /// log2(x) for x > 0.
    public static func log2(_ x: Double) -> Double {
        guard x > 0 else { return x == 0 ? -.infinity : .nan }
        guard x.isFinite else { return x }
        // x = m · 2^e with m in [√½, √2), exactly.
        var e = Int(x.exponent)
        var m = x.significand   // [1, 2)
        if m > 1.414_213_562_373_095 { m /= 2; e += 1 }
        // ln m = 2·atanh(s), s = (m − 1)/(m + 1), |s| ≤ 0.1716.
        let s = (m - 1) / (m + 1), s2 = s * s
        var power = s, sum = 0.0
        for k in stride(from: 1, through: 29, by: 2) {
            sum += power / Double(k)
            power *= s2
        }
        return Double(e) + 2 * sum / ln2
    }

    /// x^y for x ≥ 0.
    public static func pow(_ x: Double, _ y: Double) -> Double {
        if y == 0 { return 1 }
        if x == 0 { return y > 0 ? 0 : .infinity }
        return exp2(y * log2(x))
    }

    /// sin and cos of an angle in radians (|x| up to a few turns; used for filter set-up).
    public static func sinCos(_ x: Double) -> (sin: Double, cos: Double) {
        let turns = (x / (2 * pi)).rounded()
        let t = x - turns * 2 * pi   // [−π, π]
        var s = 0.0, c = 0.0
        var term = 1.0   // t^k / k!
        for k in 0...40 {
            switch k % 4 {
            case 0: c += term
            case 1: s += term
            case 2: c -= term
            default: s -= term
            }
            term = term * t / Double(k + 1)
        }
        return (s, c)
    }

    // MARK: Single precision, eight lanes at a time, for per-pixel use

    public typealias Lanes = SIMD8<Float>

    /// log2(x) for x > 0 (relative error about 1e-7): exponent and mantissa from the
    /// bits, the mantissa brought into [√½, √2), five terms of the atanh series.
    @inlinable @inline(__always)
    public static func log2(_ x: Lanes) -> Lanes {
        let bits = unsafeBitCast(x, to: SIMD8<UInt32>.self)
        var e = Lanes(SIMD8<Int32>(truncatingIfNeeded: bits &>> 23) &- 127)
        var m = unsafeBitCast((bits & 0x007F_FFFF) | 0x3F80_0000, to: Lanes.self)
        let high = m .> 1.4142135
        m.replace(with: m * 0.5, where: high)
        e.replace(with: e + 1, where: high)
        let s: Lanes = (m - 1) / (m + 1)
        let s2: Lanes = s * s
        var series: Lanes = s2 * 0.2222222 + 0.2857143
        series = series * s2 + 0.4
        series = series * s2 + 0.6666667
        series = series * s2 + 2
        return e + s * series * 1.442695
    }

    /// 2^y for y in [−126, 127] (relative error about 1e-7).
    @inlinable @inline(__always)
    public static func exp2(_ y: Lanes) -> Lanes {
        let y = y.clamped(lowerBound: Lanes(repeating: -126), upperBound: Lanes(repeating: 127))
        let n: Lanes = (y + 0.5).rounded(.down)
        let f: Lanes = (y - n) * 0.6931472
        // Taylor series of e^f to degree 7, |f| ≤ ln2 / 2.
        var p: Lanes = f * 0.0001984127 + 0.0013888889
        p = p * f + 0.008333334
        p = p * f + 0.041666668
        p = p * f + 0.16666667
        p = p * f + 0.5
        p = p * f + 1
        p = p * f + 1
        let scale = unsafeBitCast(SIMD8<UInt32>(truncatingIfNeeded: SIMD8<Int32>(n) &+ 127) &<< 23, to: Lanes.self)
        return p * scale
    }

    /// x^y for x in [0, 1] and y > 0; 0 where x ≤ 0 (and below 2^-100, where it is 0 to
    /// eight bits anyway).
    @inlinable @inline(__always)
    public static func pow(_ x: Lanes, _ y: Float) -> Lanes {
        let tiny = x .< 7.9e-31
        var result = exp2(log2(x.replacing(with: 1, where: tiny)) * y)
        result.replace(with: 0, where: tiny)
        return result
    }

    /// The same function for one value (lane 0 of `pow(Lanes, Float)`), so a value gives
    /// the same result alone or among others.
    @inlinable @inline(__always)
    public static func pow(_ x: Float, _ y: Float) -> Float { pow(Lanes(repeating: x), y)[0] }

    /// m · 2^n, exactly (including subnormal results).
    private static func scale(_ m: Double, by n: Int) -> Double {
        var value = m, n = n
        while n > 1000 { value *= Double(sign: .plus, exponent: 1000, significand: 1); n -= 1000 }
        while n < -1000 { value *= Double(sign: .plus, exponent: -1000, significand: 1); n += 1000 }
        return value * Double(sign: .plus, exponent: n, significand: 1)
    }
}
