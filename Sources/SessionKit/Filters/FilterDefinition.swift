/// One filter type of the catalogue (docs/filters.md): its names, its slider, how the
/// slider maps onto the operation's actual intensity, and the stages it renders as.
///
/// Each built-in type lives in a file of its own beside this one, with its math.
public struct FilterDefinition: Sendable {
    public enum Category: String, Sendable, Codable, CaseIterable {
        /// The SDK's Adjust tab: slider centred on the identity.
        case adjust
        /// Lookups and named looks (the SDK's Filter tab).
        case primary
        /// Filters that move pixels (`distortsOutput` in the SDK).
        case position
        /// The SDK's visual effects (pixellate, swirl, sketch, ...): GPUImage3 operations.
        case effect
        /// A chain defined by a `looks/NAME.json` file.
        case custom
    }

    /// The lower-camel JSON name, e.g. `warmth`.
    public let type: String
    /// The SDK's class name, accepted as an alias (`SessionFilterWarmth`).
    public let className: String?
    public let category: Category
    /// `nil` for types without an intensity (`speed`).
    public let slider: Slider?
    /// The file the filter reads, if any.
    public let input: Input
    /// Moves pixels: runs on the oriented picture, and a thumbnail may leave it out.
    public let distortsOutput: Bool
    /// The per-pixel formula in words, for `reel filters` and docs/filters.md.
    public let formula: String
    /// Turns an actual intensity (and the filter's own fields) into the stages to run.
    public let stages: @Sendable (_ actual: Double, _ filter: SessionFilter) -> [FilterStage]

    public enum Input: Sendable, Hashable {
        case none
        /// A file named by the filter's JSON key (`image` for lookups, `file` for `.cube`).
        case fileField(String, FilterAsset.Kind)
        /// The lookup image installed for the look's name in the looks directory.
        case look
    }

    public init(type: String, className: String? = nil, category: Category, slider: Slider?,
                input: Input = .none, distortsOutput: Bool = false, formula: String,
                stages: @escaping @Sendable (Double, SessionFilter) -> [FilterStage]) {
        self.type = type
        self.className = className
        self.category = category
        self.slider = slider
        self.input = input
        self.distortsOutput = distortsOutput
        self.formula = formula
        self.stages = stages
    }

    /// The SDK's name for a built-in type: `SessionFilter` + the type, capitalised.
    static func sdkClassName(_ type: String) -> String {
        "SessionFilter" + type.prefix(1).uppercased() + type.dropFirst()
    }

    public func actualIntensity(normalized n: Double) -> Double { slider?.actual(normalized: n) ?? 0 }
    public func normalizedIntensity(actual a: Double) -> Double { slider?.normalized(actual: a) ?? 0 }
    public var normalizedDefault: Double { slider?.normalizedDefault ?? 0 }
    public var normalizedRange: ClosedRange<Double> { slider?.normalizedRange ?? 0...0 }
}

/// A slider and the operation's actual range (docs/filters.md, "Intensity model").
public struct Slider: Sendable, Hashable, Codable {
    public enum Mapping: String, Sendable, Hashable, Codable {
        /// Linear from the slider range onto `actualLow … actualHigh`.
        case linear
        /// Piecewise-linear through (low, actualLow), (centre, actualDefault),
        /// (high, actualHigh): the slider's centre is the identity.
        case throughDefault
    }

    public let normalizedRange: ClosedRange<Double>
    public let actualLow: Double
    public let actualHigh: Double
    public let actualDefault: Double
    public let mapping: Mapping

    public init(normalized: ClosedRange<Double>, actual low: Double, _ high: Double, default actualDefault: Double,
                mapping: Mapping) {
        normalizedRange = normalized
        actualLow = low
        actualHigh = high
        self.actualDefault = actualDefault
        self.mapping = mapping
    }

    /// The Adjust tab: −1 … 1, centre = identity.
    public static func adjust(_ low: Double, _ high: Double, identity: Double) -> Slider {
        Slider(normalized: -1...1, actual: low, high, default: identity, mapping: .throughDefault)
    }

    /// 0 … 100 mapped linearly.
    public static func percent(_ low: Double, _ high: Double, default actualDefault: Double) -> Slider {
        Slider(normalized: 0...100, actual: low, high, default: actualDefault, mapping: .linear)
    }

    private var centre: Double { (normalizedRange.lowerBound + normalizedRange.upperBound) / 2 }

    public func actual(normalized n: Double) -> Double {
        let lo = normalizedRange.lowerBound, hi = normalizedRange.upperBound
        switch mapping {
        case .linear:
            return actualLow + (n - lo) / (hi - lo) * (actualHigh - actualLow)
        case .throughDefault:
            let c = centre
            return n < c
                ? actualDefault + (n - c) / (c - lo) * (actualDefault - actualLow)
                : actualDefault + (n - c) / (hi - c) * (actualHigh - actualDefault)
        }
    }

    public func normalized(actual a: Double) -> Double {
        let lo = normalizedRange.lowerBound, hi = normalizedRange.upperBound
        switch mapping {
        case .linear:
            return lo + (a - actualLow) / (actualHigh - actualLow) * (hi - lo)
        case .throughDefault:
            let c = centre
            let below = actualLow <= actualHigh ? a < actualDefault : a > actualDefault
            return below
                ? c + (a - actualDefault) / (actualDefault - actualLow) * (c - lo)
                : c + (a - actualDefault) / (actualHigh - actualDefault) * (hi - c)
        }
    }

    /// The inverse image of the actual default.
    public var normalizedDefault: Double { normalized(actual: actualDefault) }
}
