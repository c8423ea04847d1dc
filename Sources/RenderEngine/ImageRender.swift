import CFFmpeg
import Foundation
import SessionKit

/// Renders an image session (docs/geometry.md, docs/filters.md) to a JPEG (default quality 0.95) or, when the
/// output ends in `.png`, a PNG: orient → crop → scale → `image.filters` → `primaryFilter`.
public struct ImageRender: Sendable {
    public let loaded: LoadedSession
    public let quality: Double

    public init(loaded: LoadedSession, quality: Double = 0.95) {
        self.loaded = loaded
        self.quality = quality
    }

    public func run(to output: String) throws {
        guard let image = loaded.session.image, let info = loaded.probes[image.source], let file = loaded.files[image.source] else {
            throw EngineError("not an image session with a readable local source")
        }
        let geometry = ImageGeometry(image: image, info: info)
        let chain = try loaded.chain(geometry.filters)
        let frame = try VideoSource.firstFrame(path: file.path)
        let processor = try FrameProcessor(
            geometry: .init(orientation: geometry.orientation, naturalSize: geometry.naturalSize, cropRect: geometry.cropRect),
            renderWidth: geometry.renderWidth, renderHeight: geometry.renderHeight, chain: chain)
        let picture = try processor.processRGB(frame)
        try StillImageWriter(png: output.lowercased().hasSuffix(".png"), quality: quality)
            .write(picture, width: geometry.renderWidth, height: geometry.renderHeight, to: output)
    }
}
