import ArgumentParser
import Foundation
import RenderEngine
import SessionKit

/// The JSON Schema of one filter, from the catalogue: the type is open (custom filters of
/// a looks directory), and each built-in type and its SDK class name gets its slider range
/// and the file it needs.
enum FilterSchema {
    static func make() throws -> Data {
        var rules: [[String: Any]] = []
        for d in FilterRegistry.catalogue {
            var then: [String: Any] = [:]
            if let slider = d.slider {
                then["properties"] = ["normalizedIntensity": ["minimum": slider.normalizedRange.lowerBound,
                                                              "maximum": slider.normalizedRange.upperBound]]
            }
            if case .fileField(let key, _) = d.input { then["required"] = [key] }
            guard !then.isEmpty else { continue }
            let names = [d.type] + (d.className.map { [$0] } ?? [])
            rules.append(["if": ["properties": ["type": ["enum": names]]], "then": then])
        }
        let schema: [String: Any] = [
            "type": "object",
            "properties": [
                "type": ["type": "string", "minLength": 1,
                         "description": "A type of docs/filters.md, its SDK class name, or a custom filter of the looks directory."],
                "normalizedIntensity": ["type": "number"],
                "displayName": ["type": "string"],
                "version": ["type": ["string", "integer"]],
                "file": ["type": "string", "minLength": 1],
                "image": ["type": "string", "minLength": 1],
            ],
            "required": ["type"],
            "allOf": rules,
        ]
        return try JSONSerialization.data(withJSONObject: schema, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }
}
