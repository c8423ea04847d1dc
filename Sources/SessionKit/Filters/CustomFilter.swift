import Foundation

/// A filter defined by a `looks/NAME.json` file (docs/filters.md, "Custom filters"): one
/// slider driving a chain of built-in operations, each mapped onto a range of its own,
/// as the SDK's custom-filter examples chain lookup → brightness → sharpness.
///
/// ```json
/// {"type": "dreamy", "slider": {"range": [0, 100], "default": 100},
///  "stages": [{"operation": "lookup", "image": "dreamy.png", "range": [0, 1]},
///             {"operation": "brightness", "range": [0, 0.025]}]}
/// ```
/// Images are named relative to the looks directory.
public struct CustomFilterFile: Sendable, Hashable, Codable {
    public var type: String
    public var displayName: String?
    public var slider: SliderSpec
    public var stages: [Stage]

    public struct SliderSpec: Sendable, Hashable, Codable {
        public var range: [Double]
        public var `default`: Double
    }

    public struct Stage: Sendable, Hashable, Codable {
        public var operation: String
        /// The actual intensity at the slider's low and high ends.
        public var range: [Double]
        /// A lookup image (for `lookup`) or `.cube` file (for `lut`), in the looks directory.
        public var image: String?
        public var file: String?
    }

    /// Reads and checks a definition; errors name the key and the numbers.
    public static func parse(_ data: Data, name: String) throws(CustomFilterError) -> CustomFilterFile {
        let file: CustomFilterFile
        do {
            file = try JSONDecoder().decode(CustomFilterFile.self, from: data)
        } catch {
            throw CustomFilterError("\(name): \(SessionDocumentError(error))")
        }
        try file.check(name: name)
        return file
    }

    func check(name: String) throws(CustomFilterError) {
        guard type.first?.isLetter == true, type.allSatisfy({ $0.isLetter || $0.isNumber }) else {
            throw CustomFilterError("\(name): type '\(type)' must be letters and digits, starting with a letter")
        }
        guard FilterRegistry.builtIn[type] == nil else {
            throw CustomFilterError("\(name): type '\(type)' is a built-in filter type")
        }
        guard slider.range.count == 2, slider.range.allSatisfy(\.isFinite), slider.range[0] < slider.range[1] else {
            throw CustomFilterError("\(name): slider.range must be [low, high] with low < high")
        }
        guard (slider.range[0]...slider.range[1]).contains(slider.default) else {
            throw CustomFilterError("\(name): slider.default \(slider.default) is outside \(slider.range[0]) … \(slider.range[1])")
        }
        guard !stages.isEmpty else { throw CustomFilterError("\(name): stages is empty") }
        for (i, stage) in stages.enumerated() {
            guard let op = FilterRegistry.builtIn[stage.operation], op.slider != nil, op.input != .look else {
                throw CustomFilterError("\(name): stages[\(i)].operation '\(stage.operation)' is not a built-in operation with an intensity")
            }
            guard stage.range.count == 2, stage.range.allSatisfy(\.isFinite) else {
                throw CustomFilterError("\(name): stages[\(i)].range must be [low, high]")
            }
            if case .fileField(let key, _) = op.input, (key == "image" ? stage.image : stage.file) == nil {
                throw CustomFilterError("\(name): stages[\(i)] needs '\(key)' for '\(stage.operation)'")
            }
        }
    }

    /// Files the chain reads, as references in the looks directory.
    public var assets: [FilterAsset] {
        stages.compactMap { stage in
            if let image = stage.image { return FilterAsset(kind: .lookupImage, reference: Self.lookReference(image)) }
            if let file = stage.file { return FilterAsset(kind: .cube, reference: Self.lookReference(file)) }
            return nil
        }
    }

    /// The reference of the definition file of custom type `type`.
    public static func definitionReference(_ type: String) -> String { lookReference("\(type).json") }

    public static func lookReference(_ name: String) -> String { "look:\(name)" }

    public var definition: FilterDefinition {
        let stages = stages, lo = slider.range[0], hi = slider.range[1]
        return FilterDefinition(
            type: type, className: nil, category: .custom,
            slider: Slider(normalized: lo...hi, actual: lo, hi, default: slider.default, mapping: .linear), input: .look,
            formula: stages.map { "\($0.operation) \($0.range[0]) … \($0.range[1])" }.joined(separator: " → ")
        ) { n, _ in
            stages.flatMap { stage -> [FilterStage] in
                guard let op = FilterRegistry.builtIn[stage.operation] else { return [] }
                let actual = stage.range[0] + (n - lo) / (hi - lo) * (stage.range[1] - stage.range[0])
                let inner = SessionFilter(type: stage.operation, file: stage.file.map(Self.lookReference),
                                          image: stage.image.map(Self.lookReference))
                return op.stages(actual, inner)
            }
        }
    }
}

public struct CustomFilterError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
