import Foundation
import SessionKit

/// What one task of a compiled job needs (docs/architecture.md): its task, the output
/// format, the encoder settings, the segments it reads, the custom filter types its
/// filters use, and its files by content id — only its own. A worker renders it with
/// nothing to decode, probe, validate or plan.
public struct ShardSpec: Sendable, Codable, Hashable {
    /// The engine that compiled it; a chunk depends on the engine's version.
    public var engine: String
    public var task: ShardTask
    public var output: RenderFormat
    public var settings: EncoderSettings
    /// A video shard's one segment; for a piece of the audio track the segments it covers
    /// and the one its post-roll reaches into, in order.
    public var segments: [SegmentTimeline]
    public var customFilters: [CustomFilterFile]
    /// Reference → content id of each file the task reads.
    public var files: [String: String]
    /// Reference → pinned object of each file read from its origin by URL (docs/operations.md,
    /// "Sources by URL"); `nil` when there is none.
    public var origins: [String: OriginObject]?

    public init(engine: String, task: ShardTask, output: RenderFormat, settings: EncoderSettings,
                segments: [SegmentTimeline], customFilters: [CustomFilterFile], files: [String: String],
                origins: [String: OriginObject]? = nil) {
        self.engine = engine
        self.task = task
        self.output = output
        self.settings = settings
        self.segments = segments
        self.customFilters = customFilters
        self.files = files
        self.origins = origins
    }

    /// Where the session names `reference` (the first segment reading it), for messages.
    public func jsonPath(of reference: String) -> String {
        let index = segments.first { $0.source == reference }?.index
        return index.map { "video.videoSegments[\($0)].source" } ?? "'\(MediaURL.redact(reference))'"
    }

    /// A reader of each file the task reads from its origin; `nil` when there are none.
    public func originInputs(client: OriginClient) -> [String: MediaInput] {
        var inputs: [String: MediaInput] = [:]
        for (reference, object) in origins ?? [:] where media.contains(reference) {
            inputs[reference] = object.input(client: client, label: jsonPath(of: reference), sparse: task.kind != .video)
        }
        return inputs
    }

    /// The segment a video shard or a segment's audio renders.
    public var segment: SegmentTimeline? {
        task.kind == .audio ? nil : segments.first { $0.index == task.segment }
    }

    /// The segments on the task's own timeline: a segment's audio alone starts at 0.
    public var timeline: [SegmentTimeline] {
        task.kind == .segmentAudio ? segments.map { $0.alone() } : segments
    }

    /// Whether an audio task's numbers are within bounds no export reaches (2^40 frames,
    /// 2^50 samples), so that a peer's spec cannot overflow the layout's arithmetic: checked
    /// before `audioLayout` is read from a spec that came over the wire.
    public var audioNumbersAreBounded: Bool {
        let frames: ClosedRange<Int64> = 0...(1 << 40)
        guard frames.contains(task.startFrame), frames.contains(task.endFrame), task.startFrame <= task.endFrame,
              frames.contains(output.frames), output.frameDuration.isPositive, segments.count < 1 << 20,
              segments.allSatisfy({ frames.contains($0.outputStartFrame) && frames.contains($0.frameCount) }) else { return false }
        let last = max(output.frames, segments.map { $0.outputStartFrame + $0.frameCount }.max() ?? 0, task.endFrame)
        return AudioPieces.sample(ofFrame: last, frameDuration: output.frameDuration) <= 1 << 50
    }

    /// What an audio task encodes and keeps: a piece of the whole track, or a segment's
    /// audio alone as a whole track of its own. Read only from a spec whose
    /// `audioNumbersAreBounded`.
    public var audioLayout: AudioPieceLayout {
        switch task.kind {
        case .audio:
            // Its segments are those it reads: the first holds its start, and one starting at
            // its end follows when it ends at a segment's start (docs/rendering.md, "Audio in pieces").
            return AudioPieceLayout(frames: task.startFrame..<task.endFrame, totalFrames: output.frames, frameDuration: output.frameDuration,
                                    segmentStarts: Set(segments.filter { $0.frameCount > 0 }.map(\.outputStartFrame)))
        case .segmentAudio, .video:
            let frames = timeline.reduce(0) { $0 + $1.frameCount }
            return AudioPieceLayout(frames: 0..<frames, totalFrames: frames, frameDuration: output.frameDuration)
        }
    }

    /// The media references the task reads.
    public var media: Set<String> {
        switch task.kind {
        case .video: segment.map { [$0.source] } ?? []
        case .audio, .segmentAudio: Set(segments.filter(\.hasAudio).map(\.source))
        }
    }

    /// Refuses a spec that could not have come from a compiled job, before any of it is
    /// used: a peer's numbers are input like any other.
    public func check() throws {
        guard output.width > 0, output.height > 0, output.width % 2 == 0, output.height % 2 == 0,
              output.width <= 16384, output.height <= 16384 else {
            throw EngineError("shard spec: output size \(output.width)×\(output.height) is not even and within 2…16384")
        }
        guard output.frameDuration.isPositive else { throw EngineError("shard spec: frame duration is not positive") }
        try settings.validate()
        guard !segments.isEmpty else { throw EngineError("shard spec: no segments") }
        for segment in segments {
            guard segment.frameCount >= 0, segment.speed.isPositive, files[segment.source] != nil || !media.contains(segment.source) else {
                throw EngineError("shard spec: segment \(segment.index) is malformed")
            }
            let crop = segment.cropRect
            guard crop.isFinite, crop.width > 0, crop.height > 0, crop.isInside(segment.actualSize) else {
                throw EngineError("shard spec: segment \(segment.index) crop \(crop) is outside \(segment.actualSize)")
            }
        }
        switch task.kind {
        case .video:
            guard let segment, task.startFrame >= 0, task.startFrame < task.endFrame, task.endFrame <= segment.frameCount else {
                throw EngineError("shard spec: frames \(task.startFrame)..<\(task.endFrame) are not in segment \(task.segment)")
            }
            guard files[segment.source] != nil else { throw EngineError("shard spec: '\(MediaURL.redact(segment.source))' has no content id") }
        case .audio:
            guard audioNumbersAreBounded, task.startFrame >= 0, task.startFrame < task.endFrame, task.endFrame <= output.frames,
                  let first = segments.first, first.outputStartFrame <= task.startFrame,
                  first.outputStartFrame + first.frameCount > task.startFrame,
                  first.outputStartFrame == task.startFrame || AudioPieces.cutsInside(first),
                  zip(segments, segments.dropFirst()).allSatisfy({ $0.outputStartFrame + $0.frameCount == $1.outputStartFrame }),
                  let last = segments.last,
                  AudioPieces.sample(ofFrame: last.outputStartFrame + last.frameCount, frameDuration: output.frameDuration) >= audioLayout.encodeTo else {
                throw EngineError("shard spec: the audio piece of frames \(task.startFrame)..<\(task.endFrame) needs its segments, in order")
            }
        case .segmentAudio:
            guard audioNumbersAreBounded, segments.count == 1, let segment, segment.hasAudio, files[segment.source] != nil else {
                throw EngineError("shard spec: the audio of segment \(task.segment) needs that segment, with sound, alone")
            }
        }
    }

    /// The catalogue plus the spec's custom filter types.
    public var registry: FilterRegistry { FilterRegistry.builtIn.adding(customFilters.map(\.definition)) }

    /// The filter files of a video shard, each with how to read it.
    public var assets: [FilterAsset] {
        guard task.kind == .video, let segment else { return [] }
        var found: [FilterAsset] = []
        for filter in segment.filters {
            guard let definition = registry[filter.type] else { continue }
            let custom = customFilters.first { $0.type == filter.type }
            for (asset, _) in definition.assets(of: filter, custom: custom) where !found.contains(asset) { found.append(asset) }
        }
        return found
    }

    /// Loads the shard's filter files from `files` (reference → local file).
    public func loadAssets(from files: [String: URL]) throws -> [String: FilterAssetFile] {
        var loaded: [String: FilterAssetFile] = [:]
        for asset in assets {
            guard let url = files[asset.reference] else { throw EngineError("'\(asset.reference)' was not provided") }
            loaded[asset.reference] = try FilterAssetFile.load(asset.kind, from: url)
        }
        return loaded
    }

    /// The shard's filter chain.
    public func chain(assets: [String: FilterAssetFile]) throws -> FilterChain {
        try FilterChain(filters: segment?.filters ?? [], registry: registry, assets: assets)
    }
}
