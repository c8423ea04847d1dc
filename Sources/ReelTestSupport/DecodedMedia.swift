import Foundation

/// Reads rendered media back with the ffmpeg command-line tool — another program than the
/// engine under test — as raw pixels and samples.
public enum DecodedMedia {
    /// Every frame of `path` as packed RGB24 at its coded size (no display-matrix rotation).
    public static func rgbFrames(_ path: String, width: Int, height: Int) throws -> [[UInt8]] {
        // Full-resolution chroma and exact rounding: the reference should not add its own error.
        let data = try ffmpeg(["-noautorotate", "-i", path, "-map", "0:v:0", "-sws_flags", "bicubic+accurate_rnd+full_chroma_int+full_chroma_inp",
                               "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        return split(data, frameSize: width * height * 3)
    }

    /// Frame `index` of `path` (0-based, in presentation order) as `rgbFrames` reads it;
    /// only it is written out, so a long clip costs one picture's bytes.
    public static func rgbFrame(_ path: String, index: Int, width: Int, height: Int) throws -> [UInt8] {
        let data = try ffmpeg(["-noautorotate", "-i", path, "-map", "0:v:0", "-vf", "select=eq(n\\,\(index))", "-frames:v", "1",
                               "-sws_flags", "bicubic+accurate_rnd+full_chroma_int+full_chroma_inp",
                               "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        guard data.count == width * height * 3 else {
            throw FFprobe.ProbeFailure("\(path): frame \(index) is \(data.count) bytes, not \(width)×\(height) RGB")
        }
        return [UInt8](data)
    }

    /// Every frame as planar YUV 4:2:0 bytes.
    public static func yuvFrames(_ path: String, width: Int, height: Int) throws -> [[UInt8]] {
        let data = try ffmpeg(["-noautorotate", "-i", path, "-map", "0:v:0", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
        return split(data, frameSize: width * height * 3 / 2)
    }

    /// The first audio stream, mixed to mono float samples at `sampleRate`.
    public static func monoSamples(_ path: String, sampleRate: Int = 48000) throws -> [Float] {
        let data = try ffmpeg(["-i", path, "-map", "0:a:0", "-f", "f32le", "-ac", "1", "-ar", String(sampleRate), "-"])
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    static func ffmpeg(_ arguments: [String]) throws -> Data {
        guard let ffmpeg = ProcessRunner.which("ffmpeg") else { throw FFprobe.ProbeFailure("ffmpeg is not installed") }
        let result = try ProcessRunner.run(ffmpeg, ["-v", "error", "-nostdin"] + arguments)
        guard result.status == 0 else { throw FFprobe.ProbeFailure("ffmpeg \(arguments.joined(separator: " ")): \(result.stderr)") }
        return result.stdoutData
    }

    private static func split(_ data: Data, frameSize: Int) -> [[UInt8]] {
        let bytes = [UInt8](data)
        return stride(from: 0, to: bytes.count - frameSize + 1, by: frameSize).map { Array(bytes[$0..<($0 + frameSize)]) }
    }
}

/// Picture and sound measurements for assertions.
public enum Measure {
    /// Peak signal-to-noise ratio in dB between two 8-bit buffers of equal length.
    public static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count && !a.isEmpty)
        var sum = 0.0
        for i in a.indices {
            let d = Double(a[i]) - Double(b[i])
            sum += d * d
        }
        let mse = sum / Double(a.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// Mean of the plane region `[x0, x1) × [y0, y1)` of an 8-bit plane `width` wide.
    public static func mean(_ plane: ArraySlice<UInt8>, width: Int, x0: Int, y0: Int, x1: Int, y1: Int) -> Double {
        var sum = 0, count = 0
        let base = plane.startIndex
        for y in y0..<y1 {
            for x in x0..<x1 {
                sum += Int(plane[base + y * width + x])
                count += 1
            }
        }
        return Double(sum) / Double(max(count, 1))
    }

    /// The frequency (Hz) with the most energy between `low` and `high`, by Goertzel at 1 Hz steps.
    public static func dominantFrequency(_ samples: [Float], sampleRate: Int, low: Int = 100, high: Int = 2000) -> Int {
        var best = (frequency: low, power: -1.0)
        for f in low...high {
            let w = 2 * Double.pi * Double(f) / Double(sampleRate)
            let coefficient = 2 * cos(w)
            var s1 = 0.0, s2 = 0.0
            for x in samples {
                let s0 = Double(x) + coefficient * s1 - s2
                s2 = s1
                s1 = s0
            }
            let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
            if power > best.power { best = (f, power) }
        }
        return best.frequency
    }
}
