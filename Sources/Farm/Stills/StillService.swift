import Foundation
import Synchronization
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
/// (`StillDecoders`); the misses of one request (a filmstrip) are drawn on all cores, one
/// lane each with its own decoders. Used by workers and by `reel thumbnail` without a
/// coordinator. Owned by one thread.
public final class StillService {
    public let cache: StillCache
    /// Test hook: one line per picture actually decoded and drawn.
    private let renderLog: String?
    /// Lanes drawing a request's misses at once; lane 0 keeps the clips between requests.
    private let laneLimit: Int
    private var lanes: [Lane]

    /// One lane's decoders, used by one thread at a time (the lock is never contended).
    private final class Lane: Sendable {
        let decoders: Mutex<StillDecoders>
        init(_ decoders: sending StillDecoders) { self.decoders = Mutex(decoders) }
    }

    public init(cache: StillCache, renderLog: String? = nil, lanes: Int = StillDecoders.idleCores()) {
        self.cache = cache
        self.renderLog = renderLog
        laneLimit = max(1, lanes)
        self.lanes = [Lane(StillDecoders())]
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
        var hits: [Int: (URL, Rational?, TimeInterval)] = [:]
        var misses: [Miss] = []
        for (index, plan) in plans.enumerated() {
            guard let media = contentIDs[plan.source] else { throw StillRequestError("'\(MediaURL.redact(plan.source))' has no content id") }
            let key = try StillCache.key(mediaID: media, plan: plan, filterFiles: filterFiles)
            if let hit = try cache.lookup(key, png: plan.png) {
                hits[index] = (hit.url, hit.shown, Date().timeIntervalSince(started))
            } else if let earlier = misses.first(where: { $0.key == key }) {
                misses.append(Miss(index: index, plan: plan, key: key, url: earlier.url, media: media))   // drawn once
            } else {
                misses.append(Miss(index: index, plan: plan, key: key, url: try cache.newFile(key, png: plan.png), media: media))
            }
        }
        let drawn = try draw(misses, renderer: renderer, started: started)
        var stored: Set<String> = []
        for miss in misses where stored.insert(miss.key).inserted {
            guard let (shown, _) = drawn[miss.index] else { continue }
            try cache.store(miss.key, png: miss.plan.png, media: miss.media, shown: shown)
        }
        return plans.enumerated().map { index, plan in
            let (url, shown, elapsed, cached): (URL, Rational?, TimeInterval, Bool)
            if let hit = hits[index] {
                (url, shown, elapsed, cached) = (hit.0, hit.1, hit.2, true)
            } else {
                let miss = misses.first { $0.index == index }
                let result = drawn[index]
                (url, shown, elapsed, cached) = (miss?.url ?? URL(fileURLWithPath: "/"), result?.0, result?.1 ?? 0, false)
            }
            return (StillResult(width: plan.width, height: plan.height, cached: cached, millis: Int(elapsed * 1000),
                                time: shown.map(\.doubleValue), micros: Int(elapsed * 1_000_000)), url)
        }
    }

    /// Draws the misses (each distinct picture once): in order on one lane, or spread over
    /// the lanes so that each lane's times still increase (its clip stays warm). Returns
    /// each picture's shown time and when it was ready.
    private func draw(_ misses: [Miss], renderer: StillRenderer, started: Date) throws -> [Int: (Rational, TimeInterval)] {
        var seen: Set<String> = []
        let firsts = misses.filter { seen.insert($0.key).inserted }
        if let renderLog { for miss in firsts { try? appendLine("still \(miss.key)", to: renderLog) } }   // a test's count, not data
        let laneCount = min(laneLimit, firsts.count)
        // Extra lanes keep one clip and a few frames each: a filmstrip's keyframes need no more.
        while lanes.count < laneCount { lanes.append(Lane(StillDecoders(clips: 1, frameBudget: 8 << 20, threads: { 1 }))) }
        let outcomes = Mutex<[String: Result<(Rational, TimeInterval), any Error>]>([:])
        let lanes = self.lanes
        @Sendable func run(lane: Int) {
            lanes[lane].decoders.withLock { decoders in
                for (i, miss) in firsts.enumerated() where i % laneCount == lane {
                    let outcome = Result {
                        let shown = try renderer.render(miss.plan, to: miss.url.path, decoders: decoders, clipKey: miss.media)
                        return (shown, Date().timeIntervalSince(started))
                    }
                    outcomes.withLock { $0[miss.key] = outcome }
                }
            }
        }
        if laneCount <= 1 {
            run(lane: 0)
        } else {
            DispatchQueue.concurrentPerform(iterations: laneCount) { run(lane: $0) }
        }
        let byKey = outcomes.withLock { $0 }
        var drawn: [Int: (Rational, TimeInterval)] = [:]
        for miss in misses {
            guard let outcome = byKey[miss.key] else { continue }
            drawn[miss.index] = try outcome.get()
        }
        return drawn
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
