import Foundation
import SessionKit
import Synchronization

/// Reads a session file, resolves and probes its media, loads the files its filters read,
/// and validates it: the one place where a document meets the filesystem.
public struct LoadedSession: Sendable {
    public let url: URL
    public let session: Session
    public let locator: MediaLocator
    /// Every media reference of the session, probed or with the reason it cannot be.
    public let media: [String: MediaStatus]
    /// Where each reference that names a file resolved to.
    public let files: [String: URL]
    /// Each reference that names a URL, pinned when it was first read (docs/session-format.md,
    /// "Sources by URL"), and the client that reads them.
    public let origins: [String: OriginObject]
    public let originClient: OriginClient?
    public internal(set) var report: ValidationReport
    /// The built-in filter types plus the custom ones the session's looks define.
    public let registry: FilterRegistry
    /// Lookup images and `.cube` files by reference, loaded and checked once.
    public let assets: [String: FilterAssetFile]
    /// The custom filter types the looks directory defined for this session, by type.
    public let customFilters: [String: CustomFilterFile]
    /// The sources' geometry a sidecar recorded, when the session was read from one
    /// (docs/session-format.md, "Templates"): a farm applying replacements needs it
    /// where the old files are gone.
    public internal(set) var recordedGeometry: [String: SourceGeometry] = [:]

    /// Throws `SessionDocumentError` when the file cannot be read as a session at all;
    /// problems with a readable session are in `report`.
    /// `looks` is the looks directory (docs/filters.md); `strictLooks` makes a stand-in look an error.
    /// `select` may narrow the decoded session first (a still needs one segment's media only).
    /// `urls` reads the references that are URLs (the default refuses internal addresses).
    /// `sidecar`: the file is a render's sidecar, whose session is read (`reel render --from`).
    public static func load(path: String, mediaRoots: [String] = [], looks: URL? = LooksDirectory.shipped,
                            strictLooks: Bool = false, urls: OriginClient = OriginClient(policy: URLPolicy()),
                            knownProbe: (URL) -> MediaInfo? = { _ in nil }, replacements: [String: String] = [:],
                            sidecar: Bool = false, select: (Session) throws -> Session = { $0 }) throws -> LoadedSession {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw SessionDocumentError(path: "", message: "cannot read \(path): \((error as NSError).localizedDescription)")
        }
        var session: Session
        var recorded: [String: SourceGeometry] = [:]
        if sidecar {
            let read: Sidecar
            do {
                read = try Sidecar.decode(data)
            } catch {
                throw SessionDocumentError(path: "", message: "\(path) is not a render's sidecar (OUT.reel.json): \(error)")
            }
            session = try select(read.session)
            recorded = read.geometry ?? [:]
        } else {
            session = try select(try SessionDocument.decode(data))
        }
        let locator = MediaLocator(sessionFile: url, mediaRoots: mediaRoots.map { URL(fileURLWithPath: $0) },
                                   looksDirectory: looks)
        var replaced: [String: MediaInfo] = [:]
        if !replacements.isEmpty {
            (session, replaced) = try replace(in: session, replacements, recorded: recorded, locator: locator, urls: urls)
        }
        var files: [String: URL] = [:]
        var unavailable: [String: String] = [:]
        var origins: [String: OriginObject] = [:]
        func resolve(_ reference: String) {
            switch locator.resolve(reference) {
            case .failure(let error):
                unavailable[reference] = error.description
            case .success(.contentID(let id)):
                unavailable[reference] = "content id sha256:\(id.prefix(12))… is only known to a coordinator; "
                    + "give a file path to render locally"
            case .success(.file(let file)):
                files[reference] = file
            case .success(.url(let address)):
                switch pin(address, client: urls) {
                case .success(let object): origins[reference] = object
                case .failure(let error): unavailable[reference] = error.description
                }
            }
        }
        let media = Set(mediaReferences(of: session))
        for reference in media { resolve(reference) }
        for reference in Set(filterFiles(of: session)).subtracting(media) {
            if MediaURL.isURL(reference) {
                // Small files, read whole once (a farm client then uploads them like any file).
                switch MediaURL.parse(reference) {
                case .failure(let error): unavailable[reference] = error.description
                case .success(let address):
                    do {
                        files[reference] = try urls.fetchWhole(address, into: FileManager.default.temporaryDirectory
                            .appendingPathComponent("reel-url-files"))
                    } catch {
                        unavailable[reference] = "\(error)"
                    }
                }
            } else {
                resolve(reference)
            }
        }
        for (reference, file) in customFilterFiles(of: session, in: locator) { files[reference] = file }
        var remembered = replaced.filter { files[$0.key] != nil }
        for reference in media { if let file = files[reference], let info = knownProbe(file) { remembered[reference] = info } }
        var loaded = make(url: url, session: session, files: files, unavailable: unavailable, origins: origins, originClient: urls,
                          remembered: remembered, locator: locator, strictLooks: strictLooks)
        if !sidecar { loaded.report.warnings = UnknownKeys.warnings(in: data) + loaded.report.warnings }
        loaded.recordedGeometry = recorded
        return loaded
    }

    /// A template applied to other media (docs/session-format.md, "Templates"): the old media's
    /// geometry is the sidecar's record, else probed when their files are there; the new
    /// media must be there. Returns the session and the new media's probes. A replacement
    /// that cannot be made is the document's error.
    private static func replace(in session: Session, _ replacements: [String: String], recorded: [String: SourceGeometry],
                                locator: MediaLocator, urls: OriginClient) throws -> (Session, [String: MediaInfo]) {
        func probe(_ reference: String) -> Result<MediaInfo, any Error> {
            switch locator.resolve(reference) {
            case .success(.file(let file)): return Result { try MediaProbe.probe(path: file.path) }
            case .success(.url(let address)):
                return Result {
                    let object = try pin(address, client: urls).get()
                    return try MediaProbe.probe(object.input(client: urls.bounded()))   // the probe as one read (--url-timeout)
                }
            case .success(.contentID): return .failure(SessionDocumentError(path: "--replace", message: "'\(reference)' is a content id; give a file or a URL"))
            case .failure(let error): return .failure(error)
            }
        }
        var old: [String: SourceGeometry] = [:], new: [String: MediaInfo] = [:]
        for (replaced, replacement) in replacements {
            if let geometry = recorded[replaced] {
                old[replaced] = geometry
            } else if case .success(let info) = probe(replaced) {
                old[replaced] = info.geometry
            }
            switch probe(replacement) {
            case .success(let info): new[replacement] = info
            case .failure(let error):
                throw SessionDocumentError(path: "--replace", message: "\(MediaURL.redact(replaced))=\(MediaURL.redact(replacement)): \(error)")
            }
        }
        do {
            return (try Template.apply(session, replacements: replacements, old: old, new: new), new)
        } catch {
            throw SessionDocumentError(path: error.path, message: error.message)
        }
    }

    /// Reads the first bytes of a URL and pins its version (size, ETag, Last-Modified).
    public static func pin(_ url: MediaURL, client: OriginClient) -> Result<OriginObject, OriginError> {
        Result { try client.open(url).0 }.mapError { $0 as? OriginError ?? OriginError(.unreachable, "\(url.redacted): \($0)") }
    }

    /// Probes and validates a session whose references are already resolved to local
    /// files (the coordinator's media store, a worker's cache).
    /// `probes`: what a coordinator already learned about media this process will not
    /// read (a farm worker renders one segment; the others are known by their probes).
    /// `origins`: references that are URLs, pinned, read with `originClient`.
    /// `remembered`: probes of references whose files (or URLs) this process reads, known from
    /// an earlier probe of the same content (a still server's memo): not probed again.
    public static func make(url: URL, session: Session, files: [String: URL], unavailable: [String: String] = [:],
                            origins: [String: OriginObject] = [:], originClient: OriginClient? = nil,
                            probes: [String: MediaInfo] = [:], remembered: [String: MediaInfo] = [:], locator: MediaLocator? = nil,
                            strictLooks: Bool = false) -> LoadedSession {
        let references = Set(mediaReferences(of: session))
        // Every source to probe, once each: a file by its path, a URL by its reference.
        var targets: [String: @Sendable () throws -> MediaInfo] = [:]
        for reference in references where !(files[reference] == nil && probes[reference] != nil) && unavailable[reference] == nil
            && remembered[reference] == nil {
            if let object = origins[reference], let originClient {
                targets["url:" + reference] = { try MediaProbe.probe(object.input(client: originClient.bounded())) }   // as one read
            } else if let file = files[reference] {
                targets["file:" + file.path] = { try MediaProbe.probe(path: file.path) }
            }
        }
        let probed = probeAll(targets)
        var media: [String: MediaStatus] = [:]
        for reference in references {
            if files[reference] == nil, let probe = probes[reference] {
                media[reference] = .available(probe)
            } else if unavailable[reference] == nil, let known = remembered[reference] {
                media[reference] = .available(known)
            } else if let reason = unavailable[reference] {
                media[reference] = .unavailable(reason)
            } else if origins[reference] != nil, originClient != nil, let status = probed["url:" + reference] {
                media[reference] = status
            } else if let file = files[reference], let status = probed["file:" + file.path] {
                media[reference] = status
            } else {
                media[reference] = .unavailable("'\(MediaURL.redact(reference))' was not provided")
            }
        }
        var filters = FilterFiles(files: files, unavailable: unavailable, strictLooks: strictLooks)
        let registry = filters.registry(for: session)
        var report = SessionValidator(filters: registry, locator: nil).validate(session, media: media)
        filters.load(session, registry: registry, into: &report)
        return LoadedSession(url: url, session: session,
                             locator: locator ?? MediaLocator(sessionFile: url, mediaRoots: []),
                             media: media, files: files, origins: origins, originClient: originClient, report: report, registry: registry, assets: filters.assets,
                             customFilters: filters.custom)
    }

    /// Runs the probes at once, as many as there are cores: each decodes a few frames
    /// (stream info, the first picture), so a 60-clip session's probes one after another
    /// held its job back by seconds before the first shard (docs/scale.md, "Idle time
    /// between shards").
    private static func probeAll(_ targets: [String: @Sendable () throws -> MediaInfo]) -> [String: MediaStatus] {
        let work = Array(targets)
        let results = Mutex<[String: MediaStatus]>([:])
        let lanes = max(1, min(work.count, ProcessInfo.processInfo.activeProcessorCount))
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            for index in stride(from: lane, to: work.count, by: lanes) {
                let status: MediaStatus
                do { status = .available(try work[index].value()) } catch { status = .unavailable("\(error)") }
                results.withLock { $0[work[index].key] = status }
            }
        }
        return results.withLock { $0 }
    }

    /// Files named by filters (`.cube` LUTs, lookup images) and the images of the SDK's
    /// named looks: what a farm must carry besides the media. Custom filters' files are
    /// added when the looks directory defines them.
    public static func filterFiles(of session: Session) -> [String] {
        session.placedFilters.flatMap { placed -> [String] in
            guard let definition = FilterRegistry.builtIn[placed.filter.type] else { return [] }
            return definition.assets(of: placed.filter).map(\.0.reference)
        }
    }

    /// The files of the looks directory that a session's filters read: the images of the
    /// SDK's named looks, and for a type the catalogue does not know, the directory's
    /// custom filter of that name with the files it reads. What cannot be found is left
    /// out (validation then names the problem at the filter's path).
    public static func lookFiles(of session: Session, in locator: MediaLocator) -> [String: URL] {
        var found = customFilterFiles(of: session, in: locator)
        for reference in filterFiles(of: session) where reference.hasPrefix(MediaLocator.lookPrefix) {
            if case .success(.file(let file)) = locator.resolve(reference) { found[reference] = file }
        }
        return found
    }

    private static func customFilterFiles(of session: Session, in locator: MediaLocator) -> [String: URL] {
        var found: [String: URL] = [:]
        for type in Set(session.placedFilters.map(\.filter.type)) where FilterRegistry.builtIn[type] == nil {
            let reference = CustomFilterFile.definitionReference(type)
            guard case .success(.file(let file)) = locator.resolve(reference) else { continue }
            found[reference] = file
            guard let data = try? Data(contentsOf: file),
                  let custom = try? CustomFilterFile.parse(data, name: file.lastPathComponent) else { continue }
            for asset in custom.assets {
                if case .success(.file(let file)) = locator.resolve(asset.reference) { found[asset.reference] = file }
            }
        }
        return found
    }

    /// The local file of a reference (media or filter file), or why there is none.
    public func file(_ reference: String) throws -> URL {
        guard let url = files[reference] else { throw EngineError("'\(MediaURL.redact(reference))' is not available as a local file") }
        return url
    }

    /// Where a demuxer reads a media reference: its file, or its origin by ranges.
    public func input(_ reference: String) throws -> MediaInput {
        if let object = origins[reference], let originClient {
            return object.input(client: originClient)
        }
        return .file(try file(reference).path)
    }

    public static func mediaReferences(of session: Session) -> [String] {
        (session.video?.videoSegments.map(\.source) ?? []) + (session.image.map { [$0.source] } ?? [])
    }

    /// The probes of every reference, when all are available.
    public var probes: [String: MediaInfo] {
        media.compactMapValues { if case .available(let info) = $0 { return info } else { return nil } }
    }

    /// The exact timeline of a valid video session.
    public func timeline() throws -> Timeline {
        try Timeline(session: session, media: probes)
    }

    /// The fused filters of one segment or image, for a picture `pixelScale` times the render size.
    public func chain(_ filters: [SessionFilter], pixelScale: Double = 1) throws -> FilterChain {
        try FilterChain(filters: filters, registry: registry, assets: assets, pixelScale: pixelScale)
    }
}

/// Loads what the filters of a session read, reporting each problem at the filter's path.
private struct FilterFiles {
    let files: [String: URL]
    let unavailable: [String: String]
    let strictLooks: Bool
    private(set) var custom: [String: CustomFilterFile] = [:]
    private(set) var customProblems: [String: String] = [:]
    private(set) var assets: [String: FilterAssetFile] = [:]
    private var assetProblems: [String: String] = [:]

    init(files: [String: URL], unavailable: [String: String], strictLooks: Bool) {
        self.files = files
        self.unavailable = unavailable
        self.strictLooks = strictLooks
    }

    /// The catalogue plus the custom types whose definitions came with the session.
    mutating func registry(for session: Session) -> FilterRegistry {
        for type in Set(session.placedFilters.map(\.filter.type)) where FilterRegistry.builtIn[type] == nil {
            guard let file = files[CustomFilterFile.definitionReference(type)] else { continue }
            do {
                let parsed = try CustomFilterFile.parse(try Data(contentsOf: file), name: "looks/\(type).json")
                guard parsed.type == type else {
                    customProblems[type] = "looks/\(type).json defines type '\(parsed.type)', not '\(type)'"
                    continue
                }
                custom[type] = parsed
            } catch {
                customProblems[type] = "\(error)"
            }
        }
        return FilterRegistry.builtIn.adding(custom.values.map(\.definition))
    }

    mutating func load(_ session: Session, registry: FilterRegistry, into report: inout ValidationReport) {
        for placed in session.placedFilters {
            let type = placed.filter.type
            if let problem = customProblems[type] {
                report.problems.append(.init(path: placed.path["type"].description, message: problem))
                continue
            }
            guard let definition = registry[type] else { continue }   // reported by the validator
            for (asset, key) in definition.assets(of: placed.filter, custom: custom[type]) {
                let path = placed.path[key].description
                if let problem = load(asset) {
                    report.problems.append(.init(path: path, message: problem))
                } else if definition.category == .primary, definition.input == .look,
                          case .lookup(let image)? = assets[asset.reference], image.standInFor != nil {
                    let message = "'\(type)' renders with ReelFarm's stand-in image (looks/\(type).png), not the SDK's own look; "
                        + "install a captured look to match the app (docs/filters.md)"
                    if strictLooks {
                        report.problems.append(.init(path: path, message: message + " (--strict-looks)"))
                    } else {
                        report.warnings.append(.init(path: path, message: message))
                    }
                }
            }
        }
    }

    /// Loads one file once; returns the problem, if any.
    private mutating func load(_ asset: FilterAsset) -> String? {
        if assets[asset.reference] != nil { return nil }
        if let known = assetProblems[asset.reference] { return known }
        let problem: String?
        if let reason = unavailable[asset.reference] {
            problem = reason
        } else if let url = files[asset.reference] {
            do {
                assets[asset.reference] = try FilterAssetFile.load(asset.kind, from: url)
                problem = nil
            } catch {
                problem = "\(error)"
            }
        } else {
            problem = "'\(asset.reference)' was not provided"
        }
        assetProblems[asset.reference] = problem
        return problem
    }
}
