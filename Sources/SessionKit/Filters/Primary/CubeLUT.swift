/// A `.cube` 3D LUT named by the filter's `file`, slider 0 … 100 → a in 0 … 1 (default 1):
/// `mix(rgb, lut3d(rgb), a)`, trilinear. ReelFarm's own type (the SDK has none).
public enum CubeLUTFilter {
    public static let definition = FilterDefinition(
        type: "lut", className: nil, category: .primary,
        slider: .percent(0, 1, default: 1), input: .fileField("file", .cube),
        formula: "mix(rgb, lut3d(rgb), a), trilinear"
    ) { a, filter in
        guard a != 0, let file = filter.file else { return [] }
        return [.asset(FilterAsset(kind: .cube, reference: file), amount: Float(a))]
    }
}
