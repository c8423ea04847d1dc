/// The AAC encoder runs at a constant quality, not at an average bit rate
/// (docs/rendering.md, "Audio in pieces"). At an average rate libavcodec's encoder
/// carries its quantiser from frame to frame, so a piece of the track encoded on its own
/// codes the same samples differently from the track in one go; at a constant quality
/// its packets match the one-go packets a few frames after it starts, and pieces join
/// packet for packet. The job's `audioBitRate` picks the quality whose average rate on
/// broadband music is that rate (and still sets the encoder's bandwidth).
enum AACQuality {
    /// (bits per second, quality): the quality libavcodec's encoder averages the rate at,
    /// on 12 s of tones over pink noise (docs/rendering.md, "Audio in pieces"). Above 256 kb/s
    /// the encoder's rate flattens out near 290 kb/s whatever the quality.
    static let calibration: [(rate: Double, quality: Double)] = [
        (32_000, 0.48), (64_000, 0.64), (96_000, 0.79), (128_000, 1.06),
        (160_000, 1.16), (192_000, 1.19), (256_000, 1.61), (512_000, 3.22),
    ]

    /// The quality (libavcodec's `-q:a` scale) for a rate, linear between calibrated rates.
    static func quality(forBitRate bitRate: Int) -> Double {
        let rate = Double(bitRate)
        guard let first = calibration.first, let last = calibration.last else { return 1 }
        if rate <= first.rate { return first.quality }
        if rate >= last.rate { return last.quality }
        for (low, high) in zip(calibration, calibration.dropFirst()) where rate <= high.rate {
            return low.quality + (high.quality - low.quality) * (rate - low.rate) / (high.rate - low.rate)
        }
        return last.quality
    }
}
