/// The SDK's nine named looks (its Filter tab). Each is a lookup image blended in by the
/// actual intensity, 0 … the look's maximum (default: the maximum). The SDK's images are
/// compiled into its binary; the farm reads `NAME.png` from its looks directory
/// (docs/filters.md, "Named looks").
public enum NamedLooks {
    /// (type, maximum actual intensity), as the SDK's class docs give them.
    public static let ranges: [(String, Double)] = [
        ("wilshire", 0.6), ("montana", 1), ("sanVicente", 1), ("melrose", 0.9), ("sepulveda", 1),
        ("laCienega", 1), ("abbotKinney", 0.9), ("mulholland", 1), ("sunset", 1),
    ]

    public static let definitions: [FilterDefinition] = ranges.map { definition(type: $0.0, maximum: $0.1) }

    /// The reference of the lookup image a look reads: resolved in the looks directory.
    public static func imageReference(_ name: String) -> String { "look:\(name).png" }

    public static func definition(type: String, maximum: Double) -> FilterDefinition {
        FilterDefinition(
            type: type, className: FilterDefinition.sdkClassName(type), category: .primary,
            slider: .percent(0, maximum, default: maximum), input: .look,
            formula: "lookup with looks/\(type).png, a in 0 … \(maximum)"
        ) { a, _ in
            a == 0 ? [] : [.asset(FilterAsset(kind: .lookupImage, reference: imageReference(type)), amount: Float(a))]
        }
    }
}
