import Foundation
import SessionKit

/// Renders an image session to a JPEG or PNG (placeholder until the image path lands).
public struct ImageRender: Sendable {
    public let loaded: LoadedSession
    public let quality: Double

    public init(loaded: LoadedSession, quality: Double) {
        self.loaded = loaded
        self.quality = quality
    }

    public func run(to output: String) throws {
        throw EngineError("image sessions cannot be rendered yet")
    }
}
