/// The SDK's Adjust-tab speed control. It sets the segment's `speedMultiplier` in the
/// editor; found in a `filters` array it has nothing to do and renders as the identity.
public enum Speed {
    public static let definition = FilterDefinition(
        type: "speed", className: "SessionFilterSpeed", category: .adjust, slider: nil,
        formula: "identity (the speed lives in speedMultiplier)"
    ) { _, _ in [] }
}
