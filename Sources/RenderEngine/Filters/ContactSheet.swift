import CFFmpeg
import Foundation
import SessionKit

/// Every filter type at three intensities on one picture, labelled (`reel filters
/// --contact-sheet`, shown in docs/filters.md): a row per type, the untouched picture first.
public struct ContactSheet {
    public let looks: LooksDirectory?
    public static let tileWidth = 160
    static let labelWidth = 150, gap = 4, caption = 11

    public init(looks: LooksDirectory?) { self.looks = looks }

    /// The slider positions shown for a type: both ends and a middle for adjust sliders.
    static func intensities(_ slider: Slider) -> [Double] {
        let lo = slider.normalizedRange.lowerBound, hi = slider.normalizedRange.upperBound
        let levels = lo < 0 ? [lo, (lo + hi) / 2 + (hi - lo) / 4, hi] : [lo + (hi - lo) / 3, lo + 2 * (hi - lo) / 3, hi]
        return hi - lo >= 10 ? levels.map { $0.rounded() } : levels
    }

    /// The rows: every built-in type that needs no file of the session, then the looks
    /// directory's custom filters; `lookup` shows the directory's `warm.png`.
    func rows() throws -> [(SessionFilter, FilterDefinition, [Double])] {
        var customs: [FilterDefinition] = []
        if let looks {
            for entry in try looks.entries() where entry.kind == .customFilter && entry.problem == nil {
                let data = try Data(contentsOf: looks.url.appendingPathComponent(entry.file))
                customs.append(try CustomFilterFile.parse(data, name: entry.file).definition)
            }
        }
        return (FilterRegistry.catalogue + customs).compactMap { definition in
            guard let slider = definition.slider, definition.type != "lut" else { return nil }
            let filter = SessionFilter(type: definition.type, image: definition.type == "lookup" ? "look:warm.png" : nil)
            return (filter, definition, Self.intensities(slider))
        }
    }

    /// `source`: any picture or video (its first frame); default: a synthetic test picture.
    public func render(source: String?, to output: String) throws {
        let tile = try sourceTile(source)
        let rows = try rows()
        let tw = Self.tileWidth, th = tile.height
        let width = Self.labelWidth + 4 * (tw + Self.gap), rowHeight = th + Self.caption + Self.gap
        let height = rows.count * rowHeight + Self.gap
        var sheet = [UInt8](repeating: 24, count: width * height * 3)
        var assets: [String: FilterAssetFile] = [:]
        for (index, (filter, definition, levels)) in rows.enumerated() {
            let top = Self.gap + index * rowHeight
            BitmapFont.draw(definition.type, x: 6, y: top + th / 2 - 3, into: &sheet, width: width, height: height)
            for column in 0..<4 {
                var pixels = tile.bytes
                var label = "ORIGINAL"
                if column > 0 {
                    var applied = filter
                    applied.normalizedIntensity = levels[column - 1]
                    let stages = applied.stages(in: definition)
                    for case .asset(let asset, _) in stages where assets[asset.reference] == nil {
                        assets[asset.reference] = try loadLook(asset)
                    }
                    let chain = try FilterChain(stages: stages, assets: assets)
                    pixels.withUnsafeMutableBufferPointer { p in
                        chain.apply(rgb: p.baseAddress!, width: tw, height: th, stride: tw * 3)
                    }
                    label = formatNumber(levels[column - 1])
                }
                let left = Self.labelWidth + column * (tw + Self.gap)
                for y in 0..<th {
                    let from = y * tw * 3, to = ((top + y) * width + left) * 3
                    sheet.replaceSubrange(to..<(to + tw * 3), with: pixels[from..<(from + tw * 3)])
                }
                BitmapFont.draw(label, x: left + 2, y: top + th + 2, into: &sheet, width: width, height: height,
                                color: (200, 200, 200))
            }
        }
        let frame = try Frame(videoFormat: AV_PIX_FMT_RGB24, width: width, height: height)
        guard let base = frame.pointer.pointee.data.0 else { throw EngineError("RGB frame has no data") }
        let stride = Int(frame.pointer.pointee.linesize.0)
        sheet.withUnsafeBufferPointer { s in
            for y in 0..<height { (base + y * stride).update(from: s.baseAddress! + y * width * 3, count: width * 3) }
        }
        try StillImageWriter(png: !output.lowercased().hasSuffix(".jpg"), quality: 0.9).write(frame, width: width, height: height, to: output)
    }

    private func loadLook(_ asset: FilterAsset) throws -> FilterAssetFile {
        guard let looks else { throw EngineError("no looks directory for '\(asset.reference)' (--looks DIR)") }
        let name = String(asset.reference.dropFirst(MediaLocator.lookPrefix.count))
        return try FilterAssetFile.load(asset.kind, from: looks.url.appendingPathComponent(name))
    }

    struct Tile { let height: Int; let bytes: [UInt8] }

    private func sourceTile(_ source: String?) throws -> Tile {
        let tw = Self.tileWidth
        guard let source else {
            // Hues across, light to dark down, a grey ramp at the bottom.
            let th = 90
            var bytes = [UInt8](repeating: 0, count: tw * th * 3)
            for y in 0..<th {
                for x in 0..<tw {
                    let i = (y * tw + x) * 3
                    let t = Double(x) / Double(tw - 1)
                    if y >= th - 14 {
                        let v = UInt8((t * 255).rounded())
                        (bytes[i], bytes[i + 1], bytes[i + 2]) = (v, v, v)
                        continue
                    }
                    let light = 1 - Double(y) / Double(th - 14)
                    let rgb = (0..<3).map { k -> UInt8 in
                        let phase = t * 6 - Double(k) * 2
                        let wave = max(0, min(1, abs((phase + 6).truncatingRemainder(dividingBy: 6) - 3) - 1))
                        return UInt8(((0.15 + 0.85 * wave) * light * 255).rounded())
                    }
                    (bytes[i], bytes[i + 1], bytes[i + 2]) = (rgb[0], rgb[1], rgb[2])
                }
            }
            return Tile(height: th, bytes: bytes)
        }
        let frame = try VideoSource.firstFrame(path: source)
        let f = frame.pointer.pointee
        let th = max(2, Int((Double(tw) * Double(f.height) / Double(max(f.width, 1))).rounded()) & ~1)
        let rgb = try Frame(videoFormat: AV_PIX_FMT_RGB24, width: tw, height: th)
        let fullRange = f.color_range == AVCOL_RANGE_JPEG || FrameProcessor.isFullRangeFormat(f.format)
        let key = Scaler.Key(sourceWidth: f.width, sourceHeight: f.height, sourceFormat: f.format, width: Int32(tw),
                             height: Int32(th), format: AV_PIX_FMT_RGB24.rawValue,
                             sourceMatrix: FrameProcessor.reading(f).table, sourceFullRange: fullRange)
        try Scaler(key).scale(source: [f.data.0, f.data.1, f.data.2, f.data.3].map { $0.map { UnsafePointer($0) } },
                              sourceStrides: [f.linesize.0, f.linesize.1, f.linesize.2, f.linesize.3],
                              destination: [rgb.pointer.pointee.data.0, nil, nil, nil],
                              destinationStrides: [rgb.pointer.pointee.linesize.0, 0, 0, 0])
        guard let base = rgb.pointer.pointee.data.0 else { throw EngineError("RGB frame has no data") }
        let stride = Int(rgb.pointer.pointee.linesize.0)
        var bytes = [UInt8](repeating: 0, count: tw * th * 3)
        for y in 0..<th { for i in 0..<(tw * 3) { bytes[y * tw * 3 + i] = base[y * stride + i] } }
        return Tile(height: th, bytes: bytes)
    }
}
