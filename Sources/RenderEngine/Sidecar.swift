import Foundation
import SessionKit

/// The adjustment sidecar written next to a render (`OUT.reel.json`), in the spirit of
/// Photos' adjustment data: the session as rendered, its format, and the content ids of
/// its sources, so the edit can be reopened, altered or reverted later.
public struct Sidecar: Codable, Sendable, Equatable {
    public var formatIdentifier: String
    public var formatVersion: String
    public var engineVersion: String
    public var encoder: EncoderSettings
    /// Each media reference of the session → `sha256:<hex>` of the file rendered.
    public var sources: [String: String]
    public var output: Output
    public var session: Session
    /// For a per-segment export: the segment the file holds (`video.videoSegments[segment]`).
    public var segment: Int?
    /// Media reference → the colour conversion made before the filters (HDR sources only).
    public var colour: [String: String]?
    /// Media reference → its picture and length, so the edit can be applied to other media
    /// without the old files (docs/session-format.md, "Templates").
    public var geometry: [String: SourceGeometry]?

    public struct Output: Codable, Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var frameDuration: SessionTime
        public var frames: Int64

        public init(width: Int, height: Int, frameDuration: SessionTime, frames: Int64) {
            self.width = width
            self.height = height
            self.frameDuration = frameDuration
            self.frames = frames
        }

        public init(_ timeline: Timeline) {
            self.init(width: timeline.renderWidth, height: timeline.renderHeight,
                      frameDuration: SessionTime(timeline.frameDuration), frames: timeline.totalFrames)
        }
    }

    public init(formatIdentifier: String, formatVersion: String, engineVersion: String, encoder: EncoderSettings,
                sources: [String: String], output: Output, session: Session, segment: Int? = nil,
                colour: [String: String]? = nil, geometry: [String: SourceGeometry]? = nil) {
        self.geometry = geometry
        self.formatIdentifier = formatIdentifier
        self.formatVersion = formatVersion
        self.engineVersion = engineVersion
        self.encoder = encoder
        self.sources = sources
        self.output = output
        self.session = session
        self.segment = segment
        self.colour = colour
    }

    public static func path(for output: String) -> String {
        let url = URL(fileURLWithPath: output)
        return url.deletingPathExtension().path + ".reel.json"
    }

    public func encoded() throws -> Data {
        try SessionDocument.makeEncoder().encode(self)
    }

    public static func decode(_ data: Data) throws -> Sidecar {
        try SessionDocument.makeDecoder().decode(Sidecar.self, from: data)
    }
}
