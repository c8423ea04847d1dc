import Foundation
import ReelTestSupport
import Testing

/// A photo's EXIF orientation is applied before `preferredTransform`, as `UIImage` shows
/// it upright (docs/geometry.md).
@Suite struct ExifPhotoTests {
    /// A 64×32 JPEG with four coloured quadrants — red, green / blue, white — stored with
    /// EXIF `Orientation` = `tag`, inserted as an APP1 segment after SOI.
    static func photo(at path: String, exif tag: UInt16) throws {
        let image = RGBImage(width: 64, height: 32, bytes: (0..<32).flatMap { y in
            (0..<64).flatMap { x -> [UInt8] in
                switch (x < 32, y < 16) {
                case (true, true): [255, 0, 0]
                case (false, true): [0, 255, 0]
                case (true, false): [0, 0, 255]
                case (false, false): [255, 255, 255]
                }
            }
        })
        let png = path + ".png"
        try image.writePNG(to: png)
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let made = try ProcessRunner.run(ffmpeg, ["-v", "error", "-y", "-i", png, "-q:v", "2", path])
        try #require(made.status == 0, "\(made.stderr)")
        var jpeg = try Data(contentsOf: URL(fileURLWithPath: path))
        // TIFF little-endian header, one IFD entry: tag 0x0112 (Orientation), SHORT, 1, value.
        var tiff = Data("II*\0".utf8) + Data([8, 0, 0, 0]) + Data([1, 0])
        tiff += Data([0x12, 0x01, 3, 0, 1, 0, 0, 0, UInt8(tag), 0, 0, 0]) + Data([0, 0, 0, 0])
        let payload = Data("Exif\0\0".utf8) + tiff
        let length = payload.count + 2
        jpeg.insert(contentsOf: Data([0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)]) + payload, at: 2)
        try jpeg.write(to: URL(fileURLWithPath: path))
    }

    /// The colour at the centre of each quadrant of an RGB picture: TL, TR, BL, BR.
    static func quadrants(_ rgb: [UInt8], width: Int, height: Int) -> [String] {
        [(width / 4, height / 4), (3 * width / 4, height / 4), (width / 4, 3 * height / 4), (3 * width / 4, 3 * height / 4)].map { x, y in
            let i = 3 * (y * width + x)
            let (r, g, b) = (rgb[i] > 128, rgb[i + 1] > 128, rgb[i + 2] > 128)
            switch (r, g, b) {
            case (true, false, false): return "red"
            case (false, true, false): return "green"
            case (false, false, true): return "blue"
            case (true, true, true): return "white"
            default: return "\(rgb[i]),\(rgb[i + 1]),\(rgb[i + 2])"
            }
        }
    }

    @Test func anExifRotatedPhotoComesOutUprightAndPreferredTransformTurnsTheUprightPicture() throws {
        let fx = try RenderFixture()
        try Self.photo(at: fx.path("photo.jpg"), exif: 6)   // stored sideways: shown turned 90° clockwise
        try fx.session(#"{"image": {"source": "photo.jpg"}}"#, name: "upright.json")
        try fx.session(#"{"image": {"source": "photo.jpg", "preferredTransform": [0, 1, -1, 0, 32, 0]}}"#, name: "turned.json")
        for (session, size, expected) in [
            ("upright.json", (32, 64), ["blue", "red", "white", "green"]),   // 90° clockwise
            ("turned.json", (64, 32), ["white", "blue", "green", "red"]),    // then 90° more: 180°
        ] {
            let out = try fx.rendered(session, to: session + ".png")
            let frames = try DecodedMedia.rgbFrames(out, width: size.0, height: size.1)
            let frame = try #require(frames.first, "\(session): no picture of \(size.0)×\(size.1)")
            #expect(Self.quadrants(frame, width: size.0, height: size.1) == expected, "\(session)")
        }
        let inspected = try TestEnvironment.reel(["inspect", "upright.json"], in: fx.dir)
        #expect(inspected.stdout.contains("image 32×64; rotated 90° clockwise"), "\(inspected.stdout)")
    }

    /// A HEIC photo (written by `reel sample` through libheif, its turn in `irot`) is read
    /// upright, as `UIImage` shows it; a truncated one is refused at validation.
    @Test func aPortraitHEICPhotoComesOutUprightAndATruncatedOneIsRefused() throws {
        let fx = try RenderFixture()
        try fx.sample("photo.heic", ["--size", "64x32", "--pattern", "quadrants", "--rotate", "90"])
        try fx.session(#"{"image": {"source": "photo.heic"}}"#)
        let out = try fx.rendered("s.json", to: "out.png")
        let frame = try #require(try DecodedMedia.rgbFrames(out, width: 32, height: 64).first, "no 32×64 picture")
        #expect(Self.quadrants(frame, width: 32, height: 64) == ["blue", "red", "white", "green"])

        let data = try Data(contentsOf: URL(fileURLWithPath: fx.path("photo.heic")))
        try data.prefix(data.count - 200).write(to: URL(fileURLWithPath: fx.path("cut.heic")))
        try fx.session(#"{"image": {"source": "cut.heic"}}"#, name: "cut.json")
        let refused = try TestEnvironment.reel(["render", "cut.json", "-o", "cut.png"], in: fx.dir)
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("image.source") && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fx.path("cut.png")))
    }

    /// PNG transparency is composited on black: a white picture whose left half is fully
    /// transparent comes out black there and white elsewhere.
    @Test func aTransparentPNGIsCompositedOnBlack() throws {
        let fx = try RenderFixture()
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let made = try ProcessRunner.run(ffmpeg, ["-v", "error", "-f", "lavfi", "-i",
                                                  "color=c=white:s=64x32,format=rgba,geq=r=255:g=255:b=255:a='if(lt(X,32),0,255)'",
                                                  "-frames:v", "1", fx.path("alpha.png")])
        try #require(made.status == 0, "\(made.stderr)")
        try fx.session(#"{"image": {"source": "alpha.png"}}"#)
        let out = try fx.rendered("s.json", to: "out.png")
        let frame = try #require(try DecodedMedia.rgbFrames(out, width: 64, height: 32).first)
        let pixel = { (x: Int, y: Int) in Array(frame[(3 * (y * 64 + x))..<(3 * (y * 64 + x) + 3)]) }
        #expect(pixel(8, 16) == [0, 0, 0] && pixel(24, 4) == [0, 0, 0], "transparent half: \(pixel(8, 16))")
        #expect(pixel(40, 16) == [255, 255, 255] && pixel(60, 28) == [255, 255, 255], "opaque half: \(pixel(40, 16))")
    }
}
