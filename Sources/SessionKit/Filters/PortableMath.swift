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

    // MARK: Single precision, for per-pixel use

    /// log2(x) for x > 0 (relative error about 1e-7): exponent and mantissa read from the
    /// bits, the mantissa brought into [√½, √2), five terms of the atanh series.
    @inlinable @inline(__always)
    public static func log2(_ x: Float) -> Float {
        let bits = x.bitPattern
        let high = (bits & 0x007F_FFFF) > 0x0035_04F3   // mantissa above √2
        let e = Float(Int32(bitPattern: bits >> 23) - (high ? 126 : 127))
        let m = Float(bitPattern: (bits & 0x007F_FFFF) | (high ? 0x3F00_0000 : 0x3F80_0000))
        let s: Float = (m - 1) / (m + 1)
        let s2: Float = s * s
        var series: Float = s2 * 0.2222222 + 0.2857143
        series = series * s2 + 0.4
        series = series * s2 + 0.6666667
        series = series * s2 + 2
        return e + s * series * 1.442695
    }

    /// 2^y, clamped to y in [−126, 127] (relative error about 1e-7).
    @inlinable @inline(__always)
    public static func exp2(_ y: Float) -> Float {
        let y = min(max(y, -126), 127)
        let n = Int32(y + 128.5) - 128   // floor(y + ½): truncation of a positive number
        let f: Float = (y - Float(n)) * 0.6931472
        // Taylor series of e^f to degree 7, |f| ≤ ln2 / 2.
        var p: Float = f * 0.0001984127 + 0.0013888889
        p = p * f + 0.008333334
        p = p * f + 0.041666668
        p = p * f + 0.16666667
        p = p * f + 0.5
        p = p * f + 1
        p = p * f + 1
        return p * Float(bitPattern: UInt32(n + 127) << 23)
    }

    /// x^y for x in [0, 1] and y > 0; 0 below 2^-100 (0 to eight bits anyway).
    @inlinable @inline(__always)
    public static func pow(_ x: Float, _ y: Float) -> Float {
        x < 7.9e-31 ? 0 : exp2(y * log2(x))
    }

    /// m · 2^n, exactly (including subnormal results).
    private static func scale(_ m: Double, by n: Int) -> Double {
        var value = m, n = n
        while n > 1000 { value *= Double(sign: .plus, exponent: 1000, significand: 1); n -= 1000 }
        while n < -1000 { value *= Double(sign: .plus, exponent: -1000, significand: 1); n += 1000 }
        return value * Double(sign: .plus, exponent: n, significand: 1)
    }
}

/// `x^k` on [0, 1] for a fixed k: a 4096-interval table read with linear interpolation,
/// and the series itself below 1/64, where `x^k` (k < 1) is too steep for a table. The
/// table's error is below 1e-6 (far under one 8-bit code value); a lookup costs a tenth
/// of the series.
public struct PowerCurve: Sendable {
    public let exponent: Float
    @usableFromInline let table: [Float]
    static let intervals = 4096

    public init(exponent: Float) {
        self.exponent = exponent
        let n = Self.intervals
        table = (0...n).map { Float(PortableMath.pow(Double($0) / Double(n), Double(exponent))) }
    }

    /// `table` must be this curve's; `x` is clamped to [0, 1].
    @inlinable @inline(__always)
    public func value(_ x: Float, _ table: UnsafeBufferPointer<Float>) -> Float {
        let x = min(max(x, 0), 1)
        if x < 0.015625 { return PortableMath.pow(x, exponent) }
        let t = x * 4096
        let i = min(Int(t), 4095)
        let f = t - Float(i)
        return table[i] + (table[i + 1] - table[i]) * f
    }

    /// Runs `body` with the table for `value(_:_:)`.
    @inlinable
    public func withTable<R>(_ body: (UnsafeBufferPointer<Float>) -> R) -> R {
        table.withUnsafeBufferPointer(body)
    }
}
