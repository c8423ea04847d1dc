import Foundation

/// Keys of a session document that this version does not read (docs/session-format.md,
/// "Unknown keys"): warnings with their JSON path and the nearest known key, not errors —
/// a newer SDK may add keys, but `trimEnd` for `trimDuration` is a typo that would
/// otherwise render the wrong edit in silence.
public enum UnknownKeys {
    /// What an object of the document may hold. Filters are left out: their extra keys are
    /// the custom filters' parameters.
    indirect enum Shape: Sendable {
        case object([String: Shape])
        case array(Shape)
        case anything
    }

    static let location: Shape = .object(["latitude": .anything, "longitude": .anything, "altitude": .anything])
    static let segment: Shape = .object([
        "source": .anything, "trimStartTime": .anything, "trimDuration": .anything, "speedMultiplier": .anything,
        "preferredTransform": .anything, "cropRect": .anything, "filters": .anything, "frameDuration": .anything,
        "location": location,
    ])
    static let video: Shape = .object([
        "videoSegments": .array(segment), "renderSize": .anything, "speedMultiplier": .anything, "filters": .anything,
        "primaryFilter": .anything, "frameDuration": .anything,
    ])
    static let image: Shape = .object([
        "source": .anything, "cropRect": .anything, "preferredTransform": .anything, "renderSize": .anything,
        "filters": .anything, "primaryFilter": .anything,
    ])
    static let session: Shape = .object([
        "formatIdentifier": .anything, "formatVersion": .anything, "sessionID": .anything, "dateCreated": .anything,
        "dateModified": .anything, "source": .anything, "userInfo": .anything, "location": location,
        "isTransient": .anything, "hidden": .anything, "image": image, "video": video,
    ])

    /// Names other editing tools use for the session's keys, which spelling alone would not
    /// lead to (`trimEnd` is no edit away from `trimDuration`).
    static let synonyms = [
        "trimEnd": "trimDuration", "duration": "trimDuration", "trimLength": "trimDuration", "start": "trimStartTime",
        "speed": "speedMultiplier", "rate": "speedMultiplier", "transform": "preferredTransform", "crop": "cropRect",
        "segments": "videoSegments", "clips": "videoSegments", "size": "renderSize", "filter": "filters",
        "url": "source", "src": "source", "file": "source",
    ]

    /// A warning for each unknown key of the document (which must be valid JSON), in
    /// document order of paths.
    public static func warnings(in data: Data) -> [ValidationReport.Issue] {
        guard let root = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return [] }
        var found: [ValidationReport.Issue] = []
        walk(root, session, JSONPath(), into: &found)
        return found.sorted { $0.path < $1.path }
    }

    private static func walk(_ value: Any, _ shape: Shape, _ path: JSONPath, into found: inout [ValidationReport.Issue]) {
        switch shape {
        case .anything:
            return
        case .array(let element):
            guard let items = value as? [Any] else { return }
            for (index, item) in items.enumerated() { walk(item, element, path[index], into: &found) }
        case .object(let fields):
            guard let object = value as? [String: Any] else { return }
            for (key, child) in object {
                if let shape = fields[key] {
                    walk(child, shape, path[key], into: &found)
                } else {
                    let meant = synonyms[key].flatMap { fields[$0] != nil ? $0 : nil }
                        ?? NearestName.suggestion(for: key, among: Array(fields.keys))
                    let hint = meant.map { ", did you mean \($0)?" } ?? ""
                    found.append(.init(path: path[key].description, message: "unknown key\(hint) (ignored)"))
                }
            }
        }
    }
}
