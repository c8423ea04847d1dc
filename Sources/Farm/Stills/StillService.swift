import Foundation
import RenderEngine
import SessionKit

/// What a still request produced.
public struct StillResult: Codable, Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var cached: Bool
    public var millis: Int
    /// Seconds on the media's clock of the frame shown: the requested time's frame, or
    /// with a tolerance the keyframe chosen. Absent from pictures cached before it was kept.
    public var time: Double?

    public init(width: Int, height: Int, cached: Bool, millis: Int, time: Double? = nil) {
        self.width = width
        self.height = height
        self.cached = cached
        self.millis = millis
        self.time = time
    }
}

/// Serves still requests through a `StillCache`: a hit is a file lookup, a miss decodes
/// and draws once and keeps the picture. Between requests the clips read last stay open
/// (`StillDecoders`). Used by workers and by `reel thumbnail` without a coordinator.
/// Owned by one thread.
public final class StillService {
    public let cache: StillCache
    public let decoders: StillDecoders
    /// Test hook: one line per picture actually decoded and drawn.
    private let renderLog: String?

    public init(cache: StillCache, decoders: StillDecoders = StillDecoders(), renderLog: String? = nil) {
        self.cache = cache
        self.decoders = decoders
        self.renderLog = renderLog
    }

    /// Serves `requests` of a still session whose references map to `contentIDs`; returns
    /// each picture's result and cached file. A request that cannot be served throws
    /// `StillRequestError` (invalid input) before anything is drawn.
    public func serve(_ loaded: LoadedSession, contentIDs: [String: String], requests: [StillRequest]) throws -> [(StillResult, URL)] {
        for (reference, id) in contentIDs { if let info = loaded.probes[reference] { try cache.remember(info, contentID: id) } }
        let renderer = try StillRenderer(loaded: loaded)
        let plans = try requests.map { try renderer.plan($0) }
        let filterFiles = contentIDs.filter { LoadedSession.filterFiles(of: loaded.session).contains($0.key) }
        var served: [(StillResult, URL)] = []
        for plan in plans {
            let started = Date()
            guard let media = contentIDs[plan.source] else { throw StillRequestError("'\(MediaURL.redact(plan.source))' has no content id") }
            let key = try StillCache.key(mediaID: media, plan: plan, filterFiles: filterFiles)
            var cached = true
            let url: URL
            let shown: Rational?
            if let hit = try cache.lookup(key, png: plan.png) {
                url = hit.url
                shown = hit.shown
            } else {
                cached = false
                url = try cache.newFile(key, png: plan.png)
                if let renderLog { try? appendLine("still \(key)", to: renderLog) }
                let time = try renderer.render(plan, to: url.path, decoders: decoders, clipKey: media)
                try cache.store(key, png: plan.png, media: media, shown: time)
                shown = time
            }
            let millis = Int(Date().timeIntervalSince(started) * 1000)
            served.append((StillResult(width: plan.width, height: plan.height, cached: cached, millis: millis,
                                       time: shown.map(\.doubleValue)), url))
        }
        return served
    }
}

/// Appends one line to a file (test logs shared by processes: O_APPEND).
func appendLine(_ line: String, to path: String) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    guard fd >= 0 else { throw EngineError("cannot open \(path)") }
    defer { close(fd) }
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}
