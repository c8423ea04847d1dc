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
    /// The serving time in microseconds (`millis` is too coarse for a cache hit).
    public var micros: Int?

    public init(width: Int, height: Int, cached: Bool, millis: Int, time: Double? = nil, micros: Int? = nil) {
        self.width = width
        self.height = height
        self.cached = cached
        self.millis = millis
        self.time = time
        self.micros = micros
    }
}

/// Serves still requests through a `StillCache`: a hit is a file lookup, a miss decodes
/// and draws once and keeps the picture. Between requests the clips read last stay open
/// (`StillDecoders`); the keyframes a request's tolerant pictures show (a filmstrip's)
/// are decoded a few at a time together, so frame threads decode them at once. Used by
/// workers and by `reel thumbnail` without a coordinator. Owned by one thread.
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

    /// One picture to draw: where it goes and which clip it reads.
    private struct Miss {
        var index: Int
        var plan: StillPlan
        var key: String
        var url: URL
        var media: String
    }

    /// Serves `requests` of a still session whose references map to `contentIDs`; returns
    /// each picture's result and cached file. A request that cannot be served throws
    /// `StillRequestError` (invalid input) before anything is drawn. Each result's
    /// `millis` runs from the request's start to that picture being ready.
    public func serve(_ loaded: LoadedSession, contentIDs: [String: String], requests: [StillRequest]) throws -> [(StillResult, URL)] {
        let started = Date()
        for (reference, id) in contentIDs { if let info = loaded.probes[reference] { try cache.remember(info, contentID: id) } }
        let renderer = try StillRenderer(loaded: loaded)
        let plans = try requests.map { try renderer.plan($0) }
        let filterFiles = contentIDs.filter { LoadedSession.filterFiles(of: loaded.session).contains($0.key) }
        var served: [(StillResult, URL)?] = Array(repeating: nil, count: plans.count)
        var misses: [Miss] = []
        for (index, plan) in plans.enumerated() {
            guard let media = contentIDs[plan.source] else { throw StillRequestError("'\(MediaURL.redact(plan.source))' has no content id") }
            let key = try StillCache.key(mediaID: media, plan: plan, filterFiles: filterFiles)
            if let hit = try cache.lookup(key, png: plan.png) {
                served[index] = (result(plan, cached: true, shown: hit.shown, since: started), hit.url)
            } else {
                misses.append(Miss(index: index, plan: plan, key: key, url: try cache.newFile(key, png: plan.png), media: media))
            }
        }
        var drawn: [String: Rational] = [:]   // a picture asked for twice is drawn once
        for (position, miss) in misses.enumerated() {
            if drawn[miss.key] == nil {
                let next = misses[position...].prefix(StillDecoders.keyframeBatch)
                renderer.prepareKeyframes(next.map { ($0.plan, $0.media) }, decoders: decoders)
                if let renderLog { try? appendLine("still \(miss.key)", to: renderLog) }   // a test's count, not data
                let shown = try renderer.render(miss.plan, to: miss.url.path, decoders: decoders, clipKey: miss.media)
                try cache.store(miss.key, png: miss.plan.png, media: miss.media, shown: shown)
                drawn[miss.key] = shown
            }
            served[miss.index] = (result(miss.plan, cached: false, shown: drawn[miss.key], since: started), miss.url)
        }
        return served.compactMap { $0 }
    }

    private func result(_ plan: StillPlan, cached: Bool, shown: Rational?, since started: Date) -> StillResult {
        let elapsed = Date().timeIntervalSince(started)
        return StillResult(width: plan.width, height: plan.height, cached: cached, millis: Int(elapsed * 1000),
                           time: shown.map(\.doubleValue), micros: Int(elapsed * 1_000_000))
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
