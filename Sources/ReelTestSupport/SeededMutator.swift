import Foundation

/// A seeded source of random mutations of a valid input (the tests' stand-in for
/// libFuzzer, which this toolchain does not ship on Linux): the same seed gives the same
/// cases, so a failure is replayed by its seed.
public struct SeededMutator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// SplitMix64.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(1, n))) }

    /// Tokens that break JSON decoders and the numbers behind them.
    public static let tokens: [String] = [
        "null", "true", "-1", "0", "1e308", "-1e308", "1e-320", "9223372036854775808", "-9223372036854775809",
        "NaN", "\"\"", "[]", "{}", "[[[[[[[[", "\"\\u0000\"", "\"\\ud800\"", "0.5", "4294967296", "2147483648",
        "\"../../etc/passwd\"", "\"look:../x\"", ",", ":", "\"", "}", "]",
    ]

    /// One random edit of `data`: a flipped byte, a cut, a duplicated span, or a token
    /// written over a span (most often a number or a value).
    public mutating func mutate(_ data: Data) -> Data {
        var bytes = [UInt8](data)
        guard !bytes.isEmpty else { return Data(Self.tokens[below(Self.tokens.count)].utf8) }
        let at = below(bytes.count)
        let span = min(bytes.count - at, 1 + below(12))
        switch below(5) {
        case 0: bytes[at] ^= UInt8(truncatingIfNeeded: 1 << below(8))
        case 1: bytes.removeSubrange(at..<at + span)
        case 2: bytes.insert(contentsOf: bytes[at..<at + span], at: at)
        default:
            // Replace a value: from a digit, quote or bracket to the next delimiter.
            let end = bytes[at...].firstIndex { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "}") || $0 == UInt8(ascii: "]") } ?? bytes.count
            bytes.replaceSubrange(at..<max(at, end), with: Array(Self.tokens[below(Self.tokens.count)].utf8))
        }
        return Data(bytes)
    }

    /// `count` edits in a row.
    public mutating func mutate(_ data: Data, times count: Int) -> Data {
        (0..<count).reduce(data) { result, _ in mutate(result) }
    }
}
