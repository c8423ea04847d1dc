import Farm
import Foundation
import SessionKit
import RenderEngine

/// The body of `POST /v1/jobs` (docs/api.md): the session as JSON, the content id of
/// each media reference it names (uploaded with `PUT /v1/media/{contentID}`), and
/// optionally encoder settings, a priority and a callback URL.
struct SubmitBody {
    var session: String
    var files: [String: String]
    var settings: EncoderSettings
    var priority: Int
    var callback: URL?
    /// `output.url`, `output.sidecarUrl`: where the result is sent (docs/api.md, "Output to a URL").
    var outputURL: String? = nil
    var sidecarURL: String? = nil
    /// `replace`: sources rendered from other media (docs/session-format.md, "Templates").
    var replace: [String: String]? = nil
    /// `variants` of `POST /v1/batches` (docs/api.md, "Batches").
    var variants: [BatchVariant]? = nil
    /// `settings.pool`: the workers that alone render it (docs/operations.md, "Pools").
    var pool: String? = nil

    struct Invalid: Error {
        let path: String
        let message: String
    }

    /// What the parser said (a number too long for a double, nesting past its depth, the
    /// character where the text stopped being JSON), at most 160 characters of it.
    static func parserWords(_ error: any Error) -> String {
        let words = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"
        return words.count <= 160 ? words : words.prefix(100) + "… (" + words.suffix(40) + ")"
    }

    /// `batch`: the body of `POST /v1/batches`, which adds `variants` (required).
    static func parse(_ data: Data, batch: Bool = false) throws -> SubmitBody {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw Invalid(path: "$", message: "the body is not JSON the API reads: \(Self.parserWords(error))")
        }
        guard let object = parsed as? [String: Any] else {
            throw Invalid(path: "$", message: "the body is JSON but not an object: a job is {\"session\": …}")
        }
        let known = Set(["session", "files", "settings", "priority", "callback", "output", "replace"] + (batch ? ["variants"] : []))
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw Invalid(path: unknown, message: "is not a field of a \(batch ? "batch" : "job") (\(known.sorted().joined(separator: ", ")))")
        }
        guard let session = object["session"] as? [String: Any] else {
            throw Invalid(path: "session", message: "is required: the session as a JSON object")
        }
        let sessionText = String(decoding: try JSONSerialization.data(withJSONObject: session, options: [.sortedKeys]), as: UTF8.self)
        var files: [String: String] = [:]
        if let raw = object["files"] {
            guard let map = raw as? [String: Any] else { throw Invalid(path: "files", message: "must map media references to content ids") }
            for (reference, value) in map {
                guard let text = value as? String, let id = ContentID(text) else {
                    throw Invalid(path: "files.\(reference)", message: "must be a content id: sha256: and 64 lowercase hex digits")
                }
                files[reference] = id.description
            }
        }
        var settings = EncoderSettings()
        var pool: String?
        if let raw = object["settings"] {
            guard var given = raw as? [String: Any] else { throw Invalid(path: "settings", message: "must be an object") }
            // Where it renders, not how: not an encoder setting.
            if let named = given.removeValue(forKey: "pool") {
                guard let name = named as? String else { throw Invalid(path: "settings.pool", message: "must be a pool's name (a string)") }
                if let problem = PoolName.problem(name) { throw Invalid(path: "settings.pool", message: problem) }
                pool = name
            }
            // The defaults with the given fields over them: a request names only what it changes.
            var merged = (try JSONSerialization.jsonObject(with: JSONEncoder().encode(settings)) as? [String: Any]) ?? [:]
            let fields: Set = ["crf", "preset", "keyframeIntervalSeconds", "audioBitRate", "audio", "codec", "shardKeyframeIntervals"]
            for (key, value) in given {
                guard fields.contains(key) else {
                    throw Invalid(path: "settings.\(key)", message: "is not a setting (\((fields.sorted() + ["pool"]).joined(separator: ", ")))")
                }
                merged[key] = value
            }
            do {
                settings = try JSONDecoder().decode(EncoderSettings.self, from: JSONSerialization.data(withJSONObject: merged))
            } catch {
                throw Invalid(path: "settings", message: "a field has the wrong type")
            }
            do {
                try settings.validate()
            } catch let invalid as EncoderSettings.Invalid {
                throw Invalid(path: "settings.\(invalid.key)", message: invalid.apiMessage)
            }
        }
        var priority = 0
        if object["priority"] != nil {
            // JSONDecoder, not the bridged NSNumber: there 0 and 1 are also `true` and `false`.
            struct Priority: Decodable { var priority: Int }
            guard let number = try? JSONDecoder().decode(Priority.self, from: data).priority, (-1000...1000).contains(number) else {
                throw Invalid(path: "priority", message: "must be an integer from -1000 to 1000")
            }
            priority = number
        }
        var callback: URL?
        if let raw = object["callback"] {
            guard let text = raw as? String, let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw Invalid(path: "callback", message: "must be an http or https URL")
            }
            callback = url
        }
        var body = SubmitBody(session: sessionText, files: files, settings: settings, priority: priority, callback: callback)
        body.pool = pool
        if let raw = object["output"] {
            guard let output = raw as? [String: Any] else { throw Invalid(path: "output", message: "must be an object: {url, sidecarUrl}") }
            if let unknown = output.keys.sorted().first(where: { !["url", "sidecarUrl"].contains($0) }) {
                throw Invalid(path: "output.\(unknown)", message: "is not a field of output (url, sidecarUrl)")
            }
            for key in ["url", "sidecarUrl"] where output[key] != nil {
                guard let text = output[key] as? String, MediaURL.isURL(text) else {
                    throw Invalid(path: "output.\(key)", message: "must be an http or https URL")
                }
            }
            guard let url = output["url"] as? String else { throw Invalid(path: "output.url", message: "is required") }
            body.outputURL = url
            body.sidecarURL = output["sidecarUrl"] as? String
        }
        if let raw = object["replace"] { body.replace = try replacements(raw, path: "replace") }
        if batch { body.variants = try variants(object["variants"]) }
        return body
    }

    /// `{"OLD": "NEW", …}`: non-empty strings.
    private static func replacements(_ raw: Any, path: String) throws -> [String: String] {
        guard let map = raw as? [String: Any] else { throw Invalid(path: path, message: "must map sources to their replacements") }
        var replace: [String: String] = [:]
        for (old, value) in map {
            guard !old.isEmpty, let new = value as? String, !new.isEmpty else {
                throw Invalid(path: "\(path).\(old)", message: "must be a media reference or URL (a non-empty string)")
            }
            replace[old] = new
        }
        return replace
    }

    /// `[{"name": …, "replace": {…}}, …]`: names that are file names, each once.
    private static func variants(_ raw: Any?) throws -> [BatchVariant] {
        guard let list = raw as? [Any], !list.isEmpty else {
            throw Invalid(path: "variants", message: "is required: a list of {\"name\", \"replace\"}, at least one")
        }
        guard list.count <= BatchVariant.limit else {
            throw Invalid(path: "variants", message: "has \(list.count) variants; a batch takes at most \(BatchVariant.limit)")
        }
        var variants: [BatchVariant] = []
        var seen: [String: Int] = [:]
        for (index, item) in list.enumerated() {
            let path = "variants[\(index)]"
            guard let object = item as? [String: Any] else { throw Invalid(path: path, message: "must be an object {\"name\", \"replace\"}") }
            if let unknown = object.keys.sorted().first(where: { !["name", "replace"].contains($0) }) {
                throw Invalid(path: "\(path).\(unknown)", message: "is not a field of a variant (name, replace)")
            }
            guard let name = object["name"] as? String else { throw Invalid(path: "\(path).name", message: "is required: a string") }
            if let problem = BatchVariant.problem(ofName: name) { throw Invalid(path: "\(path).name", message: problem) }
            if let first = seen.updateValue(index, forKey: name) {
                throw Invalid(path: "\(path).name", message: "'\(name)' is also the name of variants[\(first)]")
            }
            guard let raw = object["replace"] else { throw Invalid(path: "\(path).replace", message: "is required") }
            variants.append(BatchVariant(name: name, replace: try replacements(raw, path: "\(path).replace")))
        }
        return variants
    }
}
