import Foundation
import SessionKit

/// A video job compiled once (docs/architecture.md, "A job compiled once"): the session
/// decoded, its media probed, validated, laid on the timeline and cut into tasks, with
/// every file named by content id. The coordinator stores it with the job, hands each
/// worker one `ShardSpec` cut from it, and assembles from it; a local render runs the
/// same tasks. Nothing downstream decodes, probes, validates or plans again.
public struct JobSpec: Sendable, Codable {
    /// Bumped when the layout changes; a stored spec of another version is compiled again
    /// from the job's session.
    public static let currentVersion = 2

    public var version: Int
    /// One file of the whole timeline, or one per segment.
    public var layout: Plan.Layout
    public var output: RenderFormat
    public var settings: EncoderSettings
    /// The output timeline, segment by segment: timing, geometry and the filter chain.
    public var segments: [SegmentTimeline]
    /// The plan: the audio track first, then the video shards in output order.
    public var tasks: [ShardTask]
    /// Every file the job reads, by the session's reference: media and filter files.
    public var files: [String: SpecFile]
    /// Filter types the catalogue does not know, as the looks directory defined them.
    public var customFilters: [CustomFilterFile]
    /// The session as submitted: the sidecar's copy and the output's metadata.
    public var session: Session
    /// Where the result is sent when assembled, if anywhere but the coordinator's disk.
    public var destination: OutputTarget? = nil
    /// The pool of workers that alone render it (`settings.pool`; docs/operations.md,
    /// "Pools"). Not part of any recipe: where a shard renders changes none of its bytes.
    public var pool: String? = nil

    public init(version: Int = currentVersion, layout: Plan.Layout = .whole, output: RenderFormat, settings: EncoderSettings, segments: [SegmentTimeline],
                tasks: [ShardTask], files: [String: SpecFile], customFilters: [CustomFilterFile] = [], session: Session) {
        self.version = version
        self.layout = layout
        self.output = output
        self.settings = settings
        self.segments = segments
        self.tasks = tasks
        self.files = files
        self.customFilters = customFilters
        self.session = session
    }

    /// Compiles a session that validated. `contentIDs`: reference → content id of each of
    /// `loaded.files` (a local render hashes them; a coordinator already knows them).
    public static func compile(_ loaded: LoadedSession, settings: EncoderSettings, contentIDs: [String: String],
                               layout: Plan.Layout = .whole, shardKeyframeIntervals: Int64 = 2) throws -> JobSpec {
        guard loaded.report.isValid else {
            throw EngineError("the session does not validate: \(loaded.report.problems.map(\.description).joined(separator: "; "))")
        }
        let timeline = try loaded.timeline()
        let plan = Plan(timeline: timeline, keyframeIntervalSeconds: settings.keyframeInterval,
                        shardKeyframeIntervals: settings.shardKeyframeIntervals ?? shardKeyframeIntervals, layout: layout)
        let probes = loaded.probes
        var files: [String: SpecFile] = [:]
        for (reference, contentID) in contentIDs {
            let origin = loaded.origins[reference]
            let size = origin?.size ?? loaded.files[reference].flatMap { FileSize.of($0.path) } ?? 0
            files[reference] = SpecFile(contentID: contentID, size: size, duration: probes[reference]?.duration,
                                        hdr: probes[reference]?.hdrTransfer, origin: origin, geometry: probes[reference]?.geometry)
        }
        for segment in timeline.segments where files[segment.source] == nil {
            throw EngineError("'\(MediaURL.redact(segment.source))' has no content id")
        }
        let builtIn = FilterRegistry.builtIn
        let customTypes = Set(timeline.segments.flatMap(\.filters).map(\.type)).filter { builtIn[$0] == nil }
        let custom = customTypes.sorted().compactMap { loaded.customFilters[$0] }
        return JobSpec(version: currentVersion, layout: layout,
                       output: RenderFormat(width: timeline.renderWidth, height: timeline.renderHeight,
                                            frameDuration: timeline.frameDuration, frames: timeline.totalFrames),
                       settings: settings, segments: timeline.segments,
                       tasks: settings.writesAudio ? plan.tasks : plan.tasks.filter { $0.kind == .video }, files: files,
                       customFilters: custom, session: loaded.session)
    }

    /// What task `index` needs and nothing more: a video shard names only its segment, its
    /// source and its filters' files; the audio track every segment's timing and the
    /// sources with sound.
    public func shard(_ index: Int) -> ShardSpec {
        let task = tasks[index]
        let segments: [SegmentTimeline]
        var references: Set<String>
        var custom: [CustomFilterFile] = []
        switch task.kind {
        case .audio:
            segments = audioSegments(of: task)
            references = Set(segments.filter(\.hasAudio).map(\.source))
        case .segmentAudio:
            segments = self.segments.indices.contains(task.segment) ? [self.segments[task.segment]] : []
            references = Set(segments.map(\.source))
        case .video:
            guard self.segments.indices.contains(task.segment) else {
                segments = []
                references = []
                break
            }
            let segment = self.segments[task.segment]
            segments = [segment]
            references = [segment.source]
            let registry = self.registry
            for filter in segment.filters {
                let own = customFilters.first { $0.type == filter.type }
                if let own, !custom.contains(own) { custom.append(own) }
                guard let definition = registry[filter.type] else { continue }
                for (asset, _) in definition.assets(of: filter, custom: own) { references.insert(asset.reference) }
            }
        }
        let own = files.filter { references.contains($0.key) }
        let origins = own.compactMapValues(\.origin)
        return ShardSpec(engine: EngineVersion.engine, task: task, output: output, settings: settings, segments: segments,
                         customFilters: custom, files: own.mapValues(\.contentID), origins: origins.isEmpty ? nil : origins)
    }

    /// Whether task `index` reads the file `contentID` (asked for every block a worker
    /// requests: media are checked without cutting the whole shard spec).
    public func task(_ index: Int, reads contentID: String) -> Bool {
        guard tasks.indices.contains(index) else { return false }
        let task = tasks[index]
        let media: [String] = switch task.kind {
        case .audio: audioSegments(of: task).filter(\.hasAudio).map(\.source)
        case .video, .segmentAudio: segments.indices.contains(task.segment) ? [segments[task.segment].source] : []
        }
        if media.contains(where: { files[$0]?.contentID == contentID }) { return true }
        return task.kind == .video && shard(index).files.values.contains(contentID)
    }

    /// The segments a piece of the audio track reads: those with frames in its range, then
    /// those its post-roll reaches into (docs/rendering.md, "Audio in pieces").
    func audioSegments(of task: ShardTask) -> [SegmentTimeline] {
        let layout = AudioPieceLayout(frames: task.startFrame..<task.endFrame, totalFrames: output.frames, frameDuration: output.frameDuration,
                                      segmentStarts: Set(segments.filter { $0.frameCount > 0 }.map(\.outputStartFrame)))
        return segments.filter { segment in
            segment.frameCount > 0 && segment.outputStartFrame + segment.frameCount > task.startFrame
                && AudioPieces.sample(ofFrame: segment.outputStartFrame, frameDuration: output.frameDuration) < layout.encodeTo
        }
    }

    /// The catalogue plus the job's custom filter types.
    var registry: FilterRegistry { FilterRegistry.builtIn.adding(customFilters.map(\.definition)) }

    /// Reference → content id of every file.
    public var contentIDs: [String: String] { files.mapValues(\.contentID) }

    public func encoded() throws -> Data { try SessionDocument.makeEncoder().encode(self) }

    public static func decode(_ data: Data) throws -> JobSpec {
        let spec = try SessionDocument.makeDecoder().decode(JobSpec.self, from: data)
        guard spec.version == currentVersion else { throw EngineError("job spec version \(spec.version), not \(currentVersion)") }
        return spec
    }
}

/// The picture a job writes.
public struct RenderFormat: Codable, Sendable, Hashable {
    public var width: Int
    public var height: Int
    /// `1 / F` seconds.
    public var frameDuration: Rational
    public var frames: Int64

    public init(width: Int, height: Int, frameDuration: Rational, frames: Int64) {
        self.width = width
        self.height = height
        self.frameDuration = frameDuration
        self.frames = frames
    }
}

/// A file of a job: its content id, size, and for media the duration the probe found and
/// the HDR transfer it is converted from; for a URL, the object pinned.
public struct SpecFile: Codable, Sendable, Hashable {
    public var contentID: String
    public var size: Int64
    public var duration: Rational?
    public var hdr: HDRTransfer?
    /// A URL's object as pinned: workers read it from the origin, not the coordinator.
    public var origin: OriginObject?
    /// A medium's picture and length, for the sidecar (docs/session-format.md, "Templates").
    public var geometry: SourceGeometry?

    public init(contentID: String, size: Int64, duration: Rational? = nil, hdr: HDRTransfer? = nil, origin: OriginObject? = nil,
                geometry: SourceGeometry? = nil) {
        self.geometry = geometry
        self.contentID = contentID
        self.size = size
        self.duration = duration
        self.hdr = hdr
        self.origin = origin
    }
}

enum FileSize {
    static func of(_ path: String) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
    }
}
