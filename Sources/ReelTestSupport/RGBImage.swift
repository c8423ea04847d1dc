import Foundation

/// Packed RGB24 pictures written to and read from PNG files by the ffmpeg command-line
/// tool — not the engine under test.
public struct RGBImage: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public var bytes: [UInt8]

    public init(width: Int, height: Int, bytes: [UInt8]) {
        precondition(bytes.count == width * height * 3)
        self.width = width
        self.height = height
        self.bytes = bytes
    }

    public subscript(x: Int, y: Int) -> (UInt8, UInt8, UInt8) {
        let i = (y * width + x) * 3
        return (bytes[i], bytes[i + 1], bytes[i + 2])
    }

    public func writePNG(to path: String) throws {
        let raw = path + ".rgb"
        try Data(bytes).write(to: URL(fileURLWithPath: raw))
        defer { try? FileManager.default.removeItem(atPath: raw) }
        _ = try DecodedMedia.ffmpeg(["-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "\(width)x\(height)", "-i", raw,
                                     "-frames:v", "1", path])
    }

    public static func readPNG(_ path: String, width: Int, height: Int) throws -> RGBImage {
        let data = try DecodedMedia.ffmpeg(["-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        return RGBImage(width: width, height: height, bytes: [UInt8](data))
    }

    /// A test card for colour filters: saturated colours, a grey ramp, near-black and
    /// near-white steps, and smooth gradients (for filters that read neighbours).
    public static func testCard(width: Int = 96, height: Int = 64) -> RGBImage {
        let saturated: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (0, 255, 255), (255, 0, 255),
                                                   (255, 255, 0), (255, 128, 0), (128, 0, 255), (0, 128, 64), (200, 30, 90)]
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let band = y * 5 / height
                let t = Double(x) / Double(width - 1)
                let pixel: (UInt8, UInt8, UInt8)
                switch band {
                case 0: pixel = saturated[x * saturated.count / width]
                case 1: let v = UInt8((t * 255).rounded()); pixel = (v, v, v)
                case 2:
                    let dark = UInt8(x * 13 / width), light = UInt8(255 - x * 13 / width)
                    pixel = y % 2 == 0 ? (dark, dark / 2, dark) : (light, light, 255 - dark / 2)
                case 3:
                    let s = Double(y - 3 * height / 5) / Double(height / 5)
                    pixel = (UInt8(t * 255), UInt8(s * 200 + 20), UInt8((1 - t) * 230))
                default:
                    pixel = (UInt8((x * 37 + y * 11) % 256), UInt8((x * 5 + y * 29) % 256), UInt8((x * 17 + y * 7) % 256))
                }
                let i = (y * width + x) * 3
                (bytes[i], bytes[i + 1], bytes[i + 2]) = pixel
            }
        }
        return RGBImage(width: width, height: height, bytes: bytes)
    }
}
