/// Turns the picture about its centre by a degrees (positive clockwise), slider −20 … 20,
/// enlarged by the smallest factor that leaves no empty corner:
/// `s = max((W cosθ + H sinθ)/W, (W sinθ + H cosθ)/H)`, θ = |a|.
public enum Straighten {
    public static let definition = FilterDefinition(
        type: "straighten", className: "SessionFilterStraighten", category: .position,
        slider: Slider(normalized: -20...20, actual: -20, 20, default: 0, mapping: .linear), distortsOutput: true,
        formula: "rotate by a° clockwise about the centre, scaled by max((W cosθ + H sinθ)/W, (W sinθ + H cosθ)/H)"
    ) { a, _ in a == 0 ? [] : [.picture(RotationWarp(degrees: a))] }
}

/// Straighten as a warp; the size is known only when the picture arrives.
public struct RotationWarp: PictureOperation {
    public let degrees: Double
    public var needsOrientedPicture: Bool { true }

    /// Output (centred) → source (centred): undo the scale, then turn back by −a.
    public static func inverse(degrees: Double, width: Double, height: Double) -> [Double] {
        let (sin, cos) = PortableMath.sinCos(degrees * PortableMath.pi / 180)
        let (s, c) = (abs(sin), abs(cos))
        let scale = max((width * c + height * s) / width, (width * s + height * c) / height)
        // On screen (y down) a clockwise turn by a is (x cos a − y sin a, x sin a + y cos a).
        let turnBack = [cos, sin, 0, -sin, cos, 0, 0, 0, 1]
        return Matrix3.product(turnBack, Matrix3.scale(1 / scale))
    }

    public func apply(_ source: PlanarPicture, into destination: inout PlanarPicture) {
        Warp(inverse: Self.inverse(degrees: degrees, width: Double(source.width), height: Double(source.height)))
            .apply(source, into: &destination)
    }
}
