/// CoreGraphics-shaped geometry with Apple's Codable encodings.
///
/// Decoding accepts what `JSONEncoder` produces on iOS (`CGSize` `[w, h]`,
/// `CGRect` `[[x, y], [w, h]]`, `CGSessionTransform` `[a, b, c, d, tx, ty]`) and objects
/// with named fields; encoding is always the array form.
public struct Size: Hashable, Sendable, Codable, CustomStringConvertible {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    public var isFinitePositive: Bool { width.isFinite && height.isFinite && width > 0 && height > 0 }
    public var aspectRatio: Double { width / height }
    public var description: String { "\(formatNumber(width))×\(formatNumber(height))" }

    private enum CodingKeys: String, CodingKey { case width, height }

    public init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            width = try array.decode(Double.self)
            height = try array.decode(Double.self)
            try array.expectEnd(of: "a size [width, height]")
        } else {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            width = try c.decode(Double.self, forKey: .width)
            height = try c.decode(Double.self, forKey: .height)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var array = encoder.unkeyedContainer()
        try array.encode(width)
        try array.encode(height)
    }
}

public struct Point: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    private enum CodingKeys: String, CodingKey { case x, y }

    public init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            x = try array.decode(Double.self)
            y = try array.decode(Double.self)
            try array.expectEnd(of: "a point [x, y]")
        } else {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            x = try c.decode(Double.self, forKey: .x)
            y = try c.decode(Double.self, forKey: .y)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var array = encoder.unkeyedContainer()
        try array.encode(x)
        try array.encode(y)
    }
}

public struct Rect: Hashable, Sendable, Codable, CustomStringConvertible {
    public var origin: Point
    public var size: Size

    public init(x: Double, y: Double, width: Double, height: Double) {
        origin = Point(x: x, y: y)
        size = Size(width: width, height: height)
    }

    public var minX: Double { origin.x }
    public var minY: Double { origin.y }
    public var maxX: Double { origin.x + size.width }
    public var maxY: Double { origin.y + size.height }
    public var width: Double { size.width }
    public var height: Double { size.height }

    public var isFinite: Bool {
        origin.x.isFinite && origin.y.isFinite && size.width.isFinite && size.height.isFinite
    }

    /// True when the rectangle lies inside `0…bounds` (with a tolerance for float noise).
    public func isInside(_ bounds: Size, tolerance: Double = 1e-6) -> Bool {
        minX >= -tolerance && minY >= -tolerance
            && maxX <= bounds.width + tolerance && maxY <= bounds.height + tolerance
    }

    public var description: String {
        "[[\(formatNumber(minX)),\(formatNumber(minY))],[\(formatNumber(width)),\(formatNumber(height))]]"
    }

    private enum CodingKeys: String, CodingKey { case x, y, width, height, origin, size }

    public init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            origin = try array.decode(Point.self)
            size = try array.decode(Size.self)
            try array.expectEnd(of: "a rect [[x, y], [width, height]]")
            return
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if c.contains(.origin) || c.contains(.size) {
            origin = try c.decode(Point.self, forKey: .origin)
            size = try c.decode(Size.self, forKey: .size)
        } else {
            origin = Point(x: try c.decode(Double.self, forKey: .x), y: try c.decode(Double.self, forKey: .y))
            size = Size(width: try c.decode(Double.self, forKey: .width),
                        height: try c.decode(Double.self, forKey: .height))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var array = encoder.unkeyedContainer()
        try array.encode(origin)
        try array.encode(size)
    }
}

/// AVFoundation's convention: `x' = a·x + c·y + tx`, `y' = b·x + d·y + ty`.
public struct SessionTransform: Hashable, Sendable, Codable, CustomStringConvertible {
    public var a, b, c, d, tx, ty: Double

    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
    }

    public static let identity = SessionTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    public var description: String {
        "[" + [a, b, c, d, tx, ty].map(formatNumber).joined(separator: ", ") + "]"
    }

    private enum CodingKeys: String, CodingKey { case a, b, c, d, tx, ty }

    public init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var v: [Double] = []
            for _ in 0..<6 { v.append(try array.decode(Double.self)) }
            try array.expectEnd(of: "a transform [a, b, c, d, tx, ty]")
            self.init(a: v[0], b: v[1], c: v[2], d: v[3], tx: v[4], ty: v[5])
        } else {
            let k = try decoder.container(keyedBy: CodingKeys.self)
            self.init(a: try k.decode(Double.self, forKey: .a), b: try k.decode(Double.self, forKey: .b),
                      c: try k.decode(Double.self, forKey: .c), d: try k.decode(Double.self, forKey: .d),
                      tx: try k.decodeIfPresent(Double.self, forKey: .tx) ?? 0,
                      ty: try k.decodeIfPresent(Double.self, forKey: .ty) ?? 0)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var array = encoder.unkeyedContainer()
        for v in [a, b, c, d, tx, ty] { try array.encode(v) }
    }
}

extension UnkeyedDecodingContainer {
    /// Rejects trailing elements, so `[1, 2, 3]` is not silently read as a size.
    mutating func expectEnd(of shape: String) throws {
        if !isAtEnd {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath,
                debugDescription: "expected \(shape), found more elements"))
        }
    }
}
