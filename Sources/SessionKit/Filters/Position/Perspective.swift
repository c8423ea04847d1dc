/// The picture plane turned by a degrees about its vertical (`horizontalPerspective`) or
/// horizontal (`verticalPerspective`) centre line, seen by a pinhole camera at the
/// frame's diagonal distance D, then enlarged to cover the frame. Slider −20 … 20.
/// The SDK does not publish its math; this is ReelFarm's definition (docs/filters.md):
/// horizontal `H = [[D cos φ, 0, 0], [0, D, 0], [sin φ, 0, D]]` on centred (x, y, 1);
/// vertical the same with x and y exchanged. Positive angles move the right (bottom)
/// edge away from the camera.
public enum Perspective {
    public static let horizontal = definition(type: "horizontalPerspective", vertical: false)
    public static let vertical = definition(type: "verticalPerspective", vertical: true)

    static func definition(type: String, vertical: Bool) -> FilterDefinition {
        FilterDefinition(
            type: type, className: FilterDefinition.sdkClassName(type), category: .position,
            slider: Slider(normalized: -20...20, actual: -20, 20, default: 0, mapping: .linear), distortsOutput: true,
            formula: "plane turned by a° about its \(vertical ? "horizontal" : "vertical") centre line, "
                + "pinhole camera at the diagonal distance, scaled to cover the frame"
        ) { a, _ in a == 0 ? [] : [.picture(PerspectiveWarp(degrees: a, vertical: vertical))] }
    }
}

public struct PerspectiveWarp: PictureOperation {
    public let degrees: Double
    public let vertical: Bool
    public var needsOrientedPicture: Bool { true }

    /// Source (centred) → output (centred), before covering.
    public static func homography(degrees: Double, vertical: Bool, width: Double, height: Double) -> [Double] {
        let d = (width * width + height * height).squareRoot()
        let (s, c) = PortableMath.sinCos(degrees * PortableMath.pi / 180)
        return vertical ? [d, 0, 0, 0, d * c, 0, 0, s, d] : [d * c, 0, 0, 0, d, 0, s, 0, d]
    }

    /// The smallest enlargement after which the turned picture covers the whole frame:
    /// every frame corner must lie inside `scale ×` the projected quadrilateral.
    public static func coverScale(_ h: [Double], width: Double, height: Double) -> Double {
        let corners = [(-width / 2, -height / 2), (width / 2, -height / 2), (width / 2, height / 2), (-width / 2, height / 2)]
        let quad = corners.map { Matrix3.apply(h, $0.0, $0.1) }
        var scale = 0.0
        for i in 0..<4 {
            let p = quad[i], q = quad[(i + 1) % 4]
            // Edge p→q with outward normal n; the origin is inside, so n·p > 0.
            var n = (q.1 - p.1, p.0 - q.0)
            var reach = n.0 * p.0 + n.1 * p.1
            if reach < 0 { n = (-n.0, -n.1); reach = -reach }
            for corner in corners { scale = max(scale, (n.0 * corner.0 + n.1 * corner.1) / reach) }
        }
        return scale
    }

    /// Output (centred) → source (centred).
    public static func inverse(degrees: Double, vertical: Bool, width: Double, height: Double) -> [Double] {
        let h = homography(degrees: degrees, vertical: vertical, width: width, height: height)
        let s = coverScale(h, width: width, height: height)
        return Matrix3.product(Matrix3.inverse(h), Matrix3.scale(1 / s))
    }

    public func apply(_ source: PlanarPicture, into destination: inout PlanarPicture) {
        let w = Double(source.width), h = Double(source.height)
        Warp(inverse: Self.inverse(degrees: degrees, vertical: vertical, width: w, height: h)).apply(source, into: &destination)
    }
}
