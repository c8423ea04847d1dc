/// Which file of a job a fetch reads (docs/protocol.md, "Client ⇄ coordinator"). On the
/// wire it is a string: `output`, `sidecar`, `files` (the JSON list of a per-segment job's
/// file names), `file:NAME` (one of them), `preview` (the live preview's index) and
/// `preview.mp4` (its segments). Any other string does not decode.
public enum ResultPart: Codable, Sendable, Hashable, CustomStringConvertible {
    case output
    case sidecar
    case files
    case file(String)
    case preview
    case previewMedia

    public init?(_ text: String) {
        switch text {
        case "output": self = .output
        case "sidecar": self = .sidecar
        case "files": self = .files
        case "preview": self = .preview
        case "preview.mp4": self = .previewMedia
        case let name where name.hasPrefix("file:") && name.count > 5: self = .file(String(name.dropFirst(5)))
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .output: "output"
        case .sidecar: "sidecar"
        case .files: "files"
        case .file(let name): "file:" + name
        case .preview: "preview"
        case .previewMedia: "preview.mp4"
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let part = ResultPart(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription:
                "no part '\(text.prefix(64))' of a result: output, sidecar, files, file:NAME, preview or preview.mp4")
        }
        self = part
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
