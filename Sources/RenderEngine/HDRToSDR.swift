import SessionKit

/// HDR pictures (BT.2020 primaries, HLG or PQ transfer) made SDR BT.709 before the
/// filters, as docs/rendering.md "HDR sources" specifies: 16-bit non-linear RGB in,
/// 8-bit BT.709 RGB out, in IEEE `Float` with tables built by `PortableMath`, so every
/// processor gives the same bytes.
///
/// Both end as display light with 100 cd/m² as 1.0, BT.709 primaries, encoded for a
/// BT.1886 display (gamma 2.4), as the reference conversions do:
/// * HLG: inverse HLG OETF to scene light, the OOTF of a 1000 cd/m² display applied to
///   each component (10 · E^1.2, as the reference library does, rather than BT.2100's
///   luminance-driven form), BT.2020 → BT.709 primaries; components clip at SDR white, as
///   the reference does (a roll-off would have to start below white, changing content the
///   reference keeps: SDR has no room above white).
/// * PQ: PQ EOTF, BT.2020 → BT.709 primaries, Möbius roll-off of the brightest component
///   (knee 0.3, peak 10 = 1000 cd/m²) scaling all three alike.
struct HDRToSDR: Sendable {
    let transfer: HDRTransfer
    /// BT.2020 primaries (the rule; a source tagged BT.709 keeps its own).
    let convertsPrimaries: Bool
    /// 16-bit code → linear light (BT.2020 primaries; 1.0 = SDR reference white).
    private let toLinear: [Float]
    /// √(linear BT.709) in `encodeSteps` steps → 8-bit code.
    private let encode: [UInt8]
    private static let encodeSteps = 4096

    /// Linear BT.2020 → linear BT.709 (ITU-R BT.2087).
    private static let matrix: [Float] = [
        1.660_491, -0.587_641, -0.072_850,
        -0.124_551, 1.132_900, -0.008_349,
        -0.018_151, -0.100_579, 1.118_730,
    ]
    static let mobiusKnee: Float = 0.3
    static let mobiusPeak: Float = 10

    init(_ transfer: HDRTransfer, convertsPrimaries: Bool = true) {
        self.transfer = transfer
        self.convertsPrimaries = convertsPrimaries
        toLinear = (0...65535).map { code in Float(Self.linear(Double(code) / 65535, transfer)) }
        encode = (0..<Self.encodeSteps).map { step in
            let root = Double(step) / Double(Self.encodeSteps - 1)
            return UInt8(min(255, max(0, (Self.encodeSDR(root * root) * 255).rounded())))
        }

    }

    /// The transfer's inverse: non-linear signal in [0, 1] → linear light.
    static func linear(_ signal: Double, _ transfer: HDRTransfer) -> Double {
        switch transfer {
        case .hlg:
            // BT.2100 HLG inverse OETF (scene light in [0, 1]), then the display's OOTF.
            let a = 0.178_832_77, b = 0.284_668_92, c = 0.559_910_73
            let scene = signal <= 0.5 ? signal * signal / 3
                : (PortableMath.exp2((signal - c) / a * 1.442_695_040_888_963_4) + b) / 12
            return scene <= 0 ? 0 : 10 * PortableMath.pow(scene, 1.2)
        case .pq:
            // SMPTE ST 2084 EOTF, in units of 100 cd/m².
            let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
            let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
            let p = PortableMath.pow(max(signal, 0), 1 / m2)
            let nits = 10_000 * PortableMath.pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
            return nits / 100
        }
    }

    /// Display light [0, 1] → BT.709 signal for a BT.1886 display (gamma 2.4, zero black).
    static func encodeSDR(_ linear: Double) -> Double {
        linear <= 0 ? 0 : PortableMath.pow(linear, 1 / 2.4)
    }

    /// Möbius roll-off of linear light above the knee, mapping `peak` to 1 (as ffmpeg's
    /// `tonemap=mobius` does).
    static func mobius(_ x: Float, knee j: Float = mobiusKnee, peak: Float = mobiusPeak) -> Float {
        guard x > j else { return x }
        let a = -j * j * (peak - 1) / (j * j - 2 * j + peak)
        let b = (j * j - 2 * j * peak + peak) / max(peak - 1, 1e-6)
        return (b * b + 2 * b * j + j * j) / (b - a) * (x + a) / (x + b)
    }

    /// Converts `width` × `height` pixels of packed RGB48 (native endian) into packed RGB24.
    func convert(_ source: UnsafePointer<UInt8>, sourceStride: Int, into destination: UnsafeMutablePointer<UInt8>,
                 destinationStride: Int, width: Int, height: Int) {
        let m = convertsPrimaries ? Self.matrix : [1, 0, 0, 0, 1, 0, 0, 0, 1]
        let (m0, m1, m2, m3, m4, m5, m6, m7, m8) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
        let steps = Float(Self.encodeSteps - 1)
        let rollsOff = transfer == .pq
        toLinear.withUnsafeBufferPointer { linear in
            encode.withUnsafeBufferPointer { encode in
                func out(_ v: Float) -> UInt8 {
                    let clipped = min(max(v, 0), 1)
                    return encode[Int(clipped.squareRoot() * steps + 0.5)]
                }
                for y in 0..<height {
                    let row = UnsafeRawPointer(source + y * sourceStride).assumingMemoryBound(to: UInt16.self)
                    let target = destination + y * destinationStride
                    for x in 0..<width {
                        let r0 = linear[Int(row[3 * x])], g0 = linear[Int(row[3 * x + 1])], b0 = linear[Int(row[3 * x + 2])]
                        var r = m0 * r0 + m1 * g0 + m2 * b0
                        var g = m3 * r0 + m4 * g0 + m5 * b0
                        var b = m6 * r0 + m7 * g0 + m8 * b0
                        if rollsOff {
                            let brightest = max(max(r, g), max(b, 1e-6))
                            if brightest > Self.mobiusKnee {
                                let scale = Self.mobius(brightest) / brightest
                                r *= scale
                                g *= scale
                                b *= scale
                            }
                        }
                        target[3 * x] = out(r)
                        target[3 * x + 1] = out(g)
                        target[3 * x + 2] = out(b)
                    }
                }
            }
        }
    }
}
