/// One of the eight axis-aligned orientations (rotations by multiples of 90°, with or
/// without a mirror) that a `preferredTransform` may express (docs/geometry.md).
///
/// Stored as the 2×2 part of the transform, a signed permutation matrix; the translation
/// only moves the picture back into the positive quadrant and is derived, not stored.
public struct Orientation: Hashable, Sendable, CustomStringConvertible {
    public let a: Int, b: Int, c: Int, d: Int

    private init(_ a: Int, _ b: Int, _ c: Int, _ d: Int) {
        (self.a, self.b, self.c, self.d) = (a, b, c, d)
    }

    public static let up = Orientation(1, 0, 0, 1)
    /// 90° clockwise on screen: a phone's portrait recording, `(0, 1, -1, 0, h, 0)`.
    public static let right = Orientation(0, 1, -1, 0)
    public static let down = Orientation(-1, 0, 0, -1)
    public static let left = Orientation(0, -1, 1, 0)
    public static let upMirrored = Orientation(-1, 0, 0, 1)
    public static let downMirrored = Orientation(1, 0, 0, -1)
    public static let leftMirrored = Orientation(0, -1, -1, 0)
    public static let rightMirrored = Orientation(0, 1, 1, 0)

    public static let all: [Orientation] = [.up, .right, .down, .left,
                                            .upMirrored, .downMirrored, .leftMirrored, .rightMirrored]

    /// `nil` unless the transform's 2×2 part is a signed permutation (within 1e-6).
    public init?(_ t: SessionTransform) {
        let values = [t.a, t.b, t.c, t.d]
        guard values.allSatisfy({ $0.isFinite }), t.tx.isFinite, t.ty.isFinite else { return nil }
        let rounded = values.map { $0.rounded() }
        guard zip(values, rounded).allSatisfy({ abs($0 - $1) < 1e-6 }),
              let match = Orientation.all.first(where: {
                  [Double($0.a), Double($0.b), Double($0.c), Double($0.d)] == rounded
              }) else { return nil }
        self = match
    }

    /// This orientation, then `next` (row vectors, as CoreGraphics concatenates:
    /// `self.concatenating(next)`).
    public func then(_ next: Orientation) -> Orientation {
        let product = (a * next.a + b * next.c, a * next.b + b * next.d, c * next.a + d * next.c, c * next.b + d * next.d)
        return Orientation.all.first { ($0.a, $0.b, $0.c, $0.d) == product } ?? self
    }

    /// A JPEG's EXIF `Orientation` (1…8, TIFF 6.0), as `UIImage` reads it: the turn that
    /// shows the stored pixels upright.
    public init?(exif value: Int) {
        let byTag: [Int: Orientation] = [1: .up, 2: .upMirrored, 3: .down, 4: .downMirrored,
                                         5: .leftMirrored, 6: .right, 7: .rightMirrored, 8: .left]
        guard let orientation = byTag[value] else { return nil }
        self = orientation
    }

    /// Width and height swap at 90° and 270°.
    public var swapsAxes: Bool { a == 0 }
    public var isMirrored: Bool { a * d - b * c < 0 }

    /// Clockwise rotation on screen, in degrees, applied after the mirror (if any).
    public var clockwiseDegrees: Int {
        switch (a, b, c, d) {
        case (1, 0, 0, 1), (-1, 0, 0, 1): return 0
        case (0, 1, -1, 0), (0, -1, -1, 0): return 90
        case (-1, 0, 0, -1), (1, 0, 0, -1): return 180
        default: return 270
        }
    }

    public func actualSize(of natural: Size) -> Size {
        swapsAxes ? Size(width: natural.height, height: natural.width) : natural
    }

    /// The transform with the translation that maps the natural picture onto `0…actualSize`.
    public func transform(naturalSize s: Size) -> SessionTransform {
        let xs = [0, Double(a) * s.width, Double(c) * s.height, Double(a) * s.width + Double(c) * s.height]
        let ys = [0, Double(b) * s.width, Double(d) * s.height, Double(b) * s.width + Double(d) * s.height]
        return SessionTransform(a: Double(a), b: Double(b), c: Double(c), d: Double(d),
                               tx: -(xs.min() ?? 0), ty: -(ys.min() ?? 0))
    }

    public var description: String {
        (isMirrored ? "mirrored, " : "") + "rotated \(clockwiseDegrees)° clockwise"
    }
}

/// Encoded as the 2×2 part `[a, b, c, d]`; anything but one of the eight is refused.
extension Orientation: Codable {
    public init(from decoder: any Decoder) throws {
        let values = try decoder.singleValueContainer().decode([Int].self)
        guard let match = Orientation.all.first(where: { [$0.a, $0.b, $0.c, $0.d] == values }) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "\(values) is not an axis-aligned orientation"))
        }
        self = match
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode([a, b, c, d])
    }
}
