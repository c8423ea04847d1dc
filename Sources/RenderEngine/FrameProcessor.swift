import CFFmpeg
import SessionKit

/// Turns a decoded source frame into an output picture (docs/geometry.md, docs/filters.md):
/// orient → crop → scale to renderSize → filters, done as crop (in source pixels) →
/// scale → filters → orient, which touches fewer pixels. Colour filters and sharpness give
/// the same result either way; a chain that moves pixels (straighten, perspective) runs
/// on the oriented picture.
final class FrameProcessor {
    /// What the processor needs of a segment or an image.
    struct Geometry {
        var orientation: Orientation
        var naturalSize: Size
        var cropRect: Rect
    }

    let geometry: Geometry
    let renderWidth: Int
    let renderHeight: Int
    let chain: FilterChain
    /// Picture size before orientation.
    private let scaledWidth: Int
    private let scaledHeight: Int
    private var toScaled: Scaler?
    /// 8-bit 4:2:0 sources: crop and scale stay in Y′CbCr, then the engine's own conversion.
    private var toScaledYUV: Scaler?
    private var scaledYUV: Frame?
    private let rgb: Frame
    private let unoriented: Frame
    /// The oriented RGB picture, for chains that move pixels.
    private let orientedRGB: Frame?
    private let workspace = FilterWorkspace()
    /// The one-pass path's rows (`processByRows`).
    private var rowScratch: YUVToRGB.Scratch?
    private var toYUV: RGBToYUV?
    /// HDR sources: the 16-bit picture before the transfer is undone, and the converter.
    private var hdrRGB: Frame?
    private var hdr: HDRToSDR?

    convenience init(segment: SegmentTimeline, renderWidth: Int, renderHeight: Int, chain: FilterChain) throws {
        try self.init(geometry: Geometry(orientation: segment.orientation, naturalSize: segment.naturalSize, cropRect: segment.cropRect),
                      renderWidth: renderWidth, renderHeight: renderHeight, chain: chain)
    }

    init(geometry: Geometry, renderWidth: Int, renderHeight: Int, chain: FilterChain) throws {
        self.geometry = geometry
        self.renderWidth = renderWidth
        self.renderHeight = renderHeight
        self.chain = chain
        (scaledWidth, scaledHeight) = geometry.orientation.swapsAxes ? (renderHeight, renderWidth) : (renderWidth, renderHeight)
        rgb = try Frame(videoFormat: AV_PIX_FMT_RGB24, width: scaledWidth, height: scaledHeight)
        unoriented = try Frame(videoFormat: AV_PIX_FMT_YUV420P, width: scaledWidth, height: scaledHeight)
        orientedRGB = chain.needsOrientedPicture
            ? try Frame(videoFormat: AV_PIX_FMT_RGB24, width: renderWidth, height: renderHeight) : nil
    }

    /// Crops and scales `source` into `rgb` (packed RGB24, BT.709 SDR), making an HDR
    /// source SDR on the way (docs/rendering.md, "HDR sources").
    private func scaleToRGB(_ source: Frame, crop: Crop, matrix: Int32, fullRange: Bool) throws {
        let f = source.pointer.pointee
        let (sourcePlanes, strides) = croppedPlanes(source, crop)
        try rgb.makeWritable()
        if Self.hasAlpha(f.format) {
            try compositeOnBlack(source, crop: crop, matrix: matrix, fullRange: fullRange)
            return
        }
        guard let hdr = hdrConverter(for: f) else {
            if try convertOwn(source, crop: crop, matrix: matrix, fullRange: fullRange) { return }
            let scaler = try scaler(&toScaled, crop: crop, format: f.format, to: AV_PIX_FMT_RGB24, matrix: matrix, fullRange: fullRange)
            try scaler.scale(source: sourcePlanes, sourceStrides: strides, destination: planes(rgb), destinationStrides: lineSizes(rgb))
            return
        }
        // 16 bits per channel until the transfer is undone: no banding from an 8-bit step.
        if hdrRGB == nil { hdrRGB = try Frame(videoFormat: AV_PIX_FMT_RGB48LE, width: scaledWidth, height: scaledHeight) }
        guard let wide = hdrRGB else { return }
        try wide.makeWritable()
        let scaler = try scaler(&toScaled, crop: crop, format: f.format, to: AV_PIX_FMT_RGB48LE, matrix: matrix, fullRange: fullRange)
        try scaler.scale(source: sourcePlanes, sourceStrides: strides, destination: planes(wide), destinationStrides: lineSizes(wide))
        guard let from = wide.pointer.pointee.data.0, let to = rgb.pointer.pointee.data.0 else {
            throw EngineError("RGB frame has no data")
        }
        hdr.convert(from, sourceStride: Int(wide.pointer.pointee.linesize.0), into: to,
                    destinationStride: Int(rgb.pointer.pointee.linesize.0), width: scaledWidth, height: scaledHeight)
    }

    /// 8-bit 4:2:0 SDR in a known matrix: crop and scale in Y′CbCr (libswscale, no colour
    /// change), then `YUVToRGB` into `rgb`. False when the source needs libswscale's path.
    private func convertOwn(_ source: Frame, crop: Crop, matrix: Int32, fullRange: Bool) throws -> Bool {
        guard let input = try ownConversionInput(source, crop: crop, matrix: matrix, fullRange: fullRange),
              let out = rgb.pointer.pointee.data.0 else { return false }
        input.converter.convert(y: input.y, yStride: input.yStride, cb: input.cb, cr: input.cr, chromaStride: input.chromaStride,
                                width: scaledWidth, height: scaledHeight, into: out, rgbStride: Int(rgb.pointer.pointee.linesize.0))
        return true
    }

    /// The scaled Y′CbCr picture the engine's own conversion reads, and the conversion.
    private struct OwnConversionInput {
        var y: UnsafePointer<UInt8>, yStride: Int
        var cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>, chromaStride: Int
        var converter: YUVToRGB
    }

    /// Crops and scales an 8-bit 4:2:0 source in a known matrix to the scaled size, still in
    /// Y′CbCr; nil when the source needs libswscale's path to RGB.
    private func ownConversionInput(_ source: Frame, crop: Crop, matrix: Int32, fullRange: Bool) throws -> OwnConversionInput? {
        let f = source.pointer.pointee
        guard f.format == AV_PIX_FMT_YUV420P.rawValue || f.format == AV_PIX_FMT_YUVJ420P.rawValue,
              let converter = YUVToRGB(matrix: matrix, fullRange: fullRange) else { return nil }
        var (sourcePlanes, strides) = croppedPlanes(source, crop)
        if crop.width != scaledWidth || crop.height != scaledHeight {
            if scaledYUV == nil { scaledYUV = try Frame(videoFormat: AV_PIX_FMT_YUV420P, width: scaledWidth, height: scaledHeight) }
            guard let scaled = scaledYUV else { return nil }
            try scaled.makeWritable()
            let key = Scaler.Key(sourceWidth: Int32(crop.width), sourceHeight: Int32(crop.height), sourceFormat: f.format,
                                 width: Int32(scaledWidth), height: Int32(scaledHeight), format: AV_PIX_FMT_YUV420P.rawValue,
                                 sourceMatrix: matrix, sourceFullRange: fullRange)
            if toScaledYUV?.key != key { toScaledYUV = try Scaler(key, outputMatrix: matrix, outputFullRange: fullRange) }
            try toScaledYUV?.scale(source: sourcePlanes, sourceStrides: strides,
                                   destination: planes(scaled), destinationStrides: lineSizes(scaled))
            sourcePlanes = planes(scaled).map { $0.map { UnsafePointer($0) } }
            strides = lineSizes(scaled)
        }
        guard let y = sourcePlanes[0], let cb = sourcePlanes[1], let cr = sourcePlanes[2], strides[1] == strides[2] else { return nil }
        return OwnConversionInput(y: y, yStride: Int(strides[0]), cb: cb, cr: cr, chromaStride: Int(strides[1]), converter: converter)
    }

    /// The common case in one pass, row by row, without a picture-sized RGB frame: each
    /// row is converted to planar RGB, run through a chain that `runsByRow`, and converted
    /// back into `target`, all while it is in the processor's cache. The same arithmetic as
    /// the separate passes, so the same bits. False when the source needs another path.
    private func processByRows(_ source: Frame, crop: Crop, matrix: Int32, fullRange: Bool, into target: Frame) throws -> Bool {
        let f = source.pointer.pointee
        guard chain.runsByRow, !Self.hasAlpha(f.format), hdrConverter(for: f) == nil,
              let input = try ownConversionInput(source, crop: crop, matrix: matrix, fullRange: fullRange) else { return false }
        let t = target.pointer.pointee
        guard let y = t.data.0, let cb = t.data.1, let cr = t.data.2, t.linesize.1 == t.linesize.2 else {
            throw EngineError("frame has no data")
        }
        if rowScratch?.width != scaledWidth { rowScratch = YUVToRGB.Scratch(width: scaledWidth) }
        if toYUV == nil { toYUV = RGBToYUV(width: scaledWidth, height: scaledHeight) }
        guard let scratch = rowScratch, let toYUV else { return false }
        toYUV.start(RGBToYUV.Output(y: y, yStride: Int(t.linesize.0), cb: cb, cr: cr, chromaStride: Int(t.linesize.1)))
        let row = scratch.rgb
        for line in 0..<scaledHeight {
            input.converter.convertRow(line, y: input.y, yStride: input.yStride, cb: input.cb, cr: input.cr,
                                       chromaStride: input.chromaStride, height: scaledHeight, scratch: scratch)
            chain.applyRow(row, y: line, height: scaledHeight, workspace: workspace)
            toYUV.push(r: row.r, g: row.g, b: row.b)
        }
        return true
    }

    static func hasAlpha(_ format: Int32) -> Bool {
        guard let desc = av_pix_fmt_desc_get(AVPixelFormat(rawValue: format)) else { return false }
        return desc.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0
    }

    /// A picture with alpha (a PNG, ProRes 4444) is composited on black, as the SDK shows
    /// it: converted to RGBA at its own size, premultiplied, then scaled into `rgb`.
    private func compositeOnBlack(_ source: Frame, crop: Crop, matrix: Int32, fullRange: Bool) throws {
        let f = source.pointer.pointee
        let (sourcePlanes, strides) = croppedPlanes(source, crop)
        let rgba = try Frame(videoFormat: AV_PIX_FMT_RGBA, width: crop.width, height: crop.height)
        let toRGBA = try Scaler(Scaler.Key(sourceWidth: Int32(crop.width), sourceHeight: Int32(crop.height), sourceFormat: f.format,
                                           width: Int32(crop.width), height: Int32(crop.height), format: AV_PIX_FMT_RGBA.rawValue,
                                           sourceMatrix: matrix, sourceFullRange: fullRange))
        try toRGBA.scale(source: sourcePlanes, sourceStrides: strides, destination: planes(rgba), destinationStrides: lineSizes(rgba))
        guard let pixels = rgba.pointer.pointee.data.0 else { throw EngineError("RGBA frame has no data") }
        let stride = Int(rgba.pointer.pointee.linesize.0)
        for y in 0..<crop.height {
            let row = pixels + y * stride
            for x in 0..<crop.width {
                let alpha = UInt32(row[4 * x + 3])
                for c in 0..<3 { row[4 * x + c] = UInt8((UInt32(row[4 * x + c]) * alpha + 127) / 255) }
                row[4 * x + 3] = 255
            }
        }
        let whole = Crop(x: 0, y: 0, width: crop.width, height: crop.height)
        let scaler = try scaler(&toScaled, crop: whole, format: AV_PIX_FMT_RGBA.rawValue, to: AV_PIX_FMT_RGB24,
                                matrix: SWS_CS_ITU709, fullRange: true)
        try scaler.scale(source: planes(rgba).map { $0.map { UnsafePointer($0) } }, sourceStrides: lineSizes(rgba),
                         destination: planes(rgb), destinationStrides: lineSizes(rgb))
    }

    /// The conversion a frame's transfer calls for, made once per transfer.
    private func hdrConverter(for f: AVFrame) -> HDRToSDR? {
        let transfer: HDRTransfer
        switch f.color_trc {
        case AVCOL_TRC_ARIB_STD_B67: transfer = .hlg
        case AVCOL_TRC_SMPTE2084: transfer = .pq
        default: return nil
        }
        let primaries = f.color_primaries != AVCOL_PRI_BT709
        if let made = hdr, made.transfer == transfer, made.convertsPrimaries == primaries { return made }
        hdr = HDRToSDR(transfer, convertsPrimaries: primaries)
        return hdr
    }

    /// Writes the processed picture into `output` (yuv420p, renderWidth×renderHeight).
    func process(_ source: Frame, into output: Frame) throws {
        let f = source.pointer.pointee
        let crop = try sourceCrop(width: Int(f.width), height: Int(f.height), format: f.format)
        let matrix = Self.sourceMatrix(f)
        let fullRange = f.color_range == AVCOL_RANGE_JPEG || Self.isFullRangeFormat(f.format)
        let isHDR = f.color_trc == AVCOL_TRC_ARIB_STD_B67 || f.color_trc == AVCOL_TRC_SMPTE2084
        // Straight to YUV when nothing needs RGB: no filters and the source already BT.709 limited SDR.
        let direct = chain.isIdentity && matrix == SWS_CS_ITU709 && !fullRange && !isHDR && !Self.hasAlpha(f.format)
        let (sourcePlanes, strides) = croppedPlanes(source, crop)
        if let orientedRGB {
            try scaleToRGB(source, crop: crop, matrix: matrix, fullRange: fullRange)
            let picture = try orientAndFilter(into: orientedRGB)
            try output.makeWritable()
            try convertToYUV(picture, width: renderWidth, height: renderHeight, into: output)
            return
        }
        let oriented = geometry.orientation == .up
        let target = oriented ? output : unoriented
        try target.makeWritable()

        if direct {
            let scaler = try scaler(&toScaled, crop: crop, format: f.format, to: AV_PIX_FMT_YUV420P, matrix: matrix, fullRange: fullRange)
            try scaler.scale(source: sourcePlanes, sourceStrides: strides,
                             destination: planes(target), destinationStrides: lineSizes(target))
        } else if try processByRows(source, crop: crop, matrix: matrix, fullRange: fullRange, into: target) {
            // Converted, filtered and converted back in one pass.
        } else {
            try scaleToRGB(source, crop: crop, matrix: matrix, fullRange: fullRange)
            if let pixels = rgb.pointer.pointee.data.0 {
                chain.apply(rgb: pixels, width: scaledWidth, height: scaledHeight, stride: Int(rgb.pointer.pointee.linesize.0),
                            workspace: workspace)
            }
            try convertToYUV(rgb, width: scaledWidth, height: scaledHeight, into: target)
        }
        if !oriented {
            try output.makeWritable()
            let o = output.pointer.pointee, u = unoriented.pointer.pointee
            let sources = [u.data.0, u.data.1, u.data.2], sourceStrides = [u.linesize.0, u.linesize.1, u.linesize.2]
            let destinations = [o.data.0, o.data.1, o.data.2], destinationStrides = [o.linesize.0, o.linesize.1, o.linesize.2]
            for plane in 0..<3 {
                guard let s = sources[plane], let d = destinations[plane] else { continue }
                let shift = plane == 0 ? 0 : 1
                orientPlane(geometry.orientation, source: s, sourceStride: Int(sourceStrides[plane]),
                            width: scaledWidth >> shift, height: scaledHeight >> shift,
                            destination: d, destinationStride: Int(destinationStrides[plane]))
            }
        }
    }

    /// Packed RGB24 to the output's BT.709 limited 4:2:0 (`RGBToYUV`).
    private func convertToYUV(_ picture: Frame, width: Int, height: Int, into target: Frame) throws {
        let p = picture.pointer.pointee, t = target.pointer.pointee
        guard let rgb = p.data.0, let y = t.data.0, let cb = t.data.1, let cr = t.data.2, t.linesize.1 == t.linesize.2 else {
            throw EngineError("frame has no data")
        }
        RGBToYUV.convert(rgb: rgb, rgbStride: Int(p.linesize.0), width: width, height: height,
                         y: y, yStride: Int(t.linesize.0), cb: cb, cr: cr, chromaStride: Int(t.linesize.1))
    }

    /// Orients the scaled RGB picture into `destination`, then runs the chain on it.
    private func orientAndFilter(into destination: Frame) throws -> Frame {
        try destination.makeWritable()
        guard let pixels = rgb.pointer.pointee.data.0, let out = destination.pointer.pointee.data.0 else {
            throw EngineError("RGB frame has no data")
        }
        let stride = Int(destination.pointer.pointee.linesize.0)
        orientPlane(geometry.orientation, source: pixels, sourceStride: Int(rgb.pointer.pointee.linesize.0),
                    width: scaledWidth, height: scaledHeight, destination: out, destinationStride: stride, bytesPerPixel: 3)
        chain.apply(rgb: out, width: renderWidth, height: renderHeight, stride: stride, workspace: workspace)
        return destination
    }

    /// The processed picture as packed RGB24, oriented (for still images).
    func processRGB(_ source: Frame) throws -> Frame {
        let f = source.pointer.pointee
        let crop = try sourceCrop(width: Int(f.width), height: Int(f.height), format: f.format)
        let matrix = Self.sourceMatrix(f)
        let fullRange = f.color_range == AVCOL_RANGE_JPEG || Self.isFullRangeFormat(f.format)
        try scaleToRGB(source, crop: crop, matrix: matrix, fullRange: fullRange)
        if chain.needsOrientedPicture {
            return try orientAndFilter(into: try Frame(videoFormat: AV_PIX_FMT_RGB24, width: renderWidth, height: renderHeight))
        }
        guard let pixels = rgb.pointer.pointee.data.0 else { throw EngineError("RGB frame has no data") }
        let stride = Int(rgb.pointer.pointee.linesize.0)
        chain.apply(rgb: pixels, width: scaledWidth, height: scaledHeight, stride: stride, workspace: workspace)
        let result = try Frame(videoFormat: AV_PIX_FMT_RGB24, width: renderWidth, height: renderHeight)
        guard let out = result.pointer.pointee.data.0 else { throw EngineError("RGB frame has no data") }
        orientPlane(geometry.orientation, source: pixels, sourceStride: stride, width: scaledWidth, height: scaledHeight,
                    destination: out, destinationStride: Int(result.pointer.pointee.linesize.0), bytesPerPixel: 3)
        return result
    }

    struct Crop: Equatable { var x: Int, y: Int, width: Int, height: Int }

    /// The segment's crop (pixels of the oriented picture) in the decoded frame's pixels,
    /// rounded to whole pixels and, for subsampled formats, to whole chroma samples.
    func sourceCrop(width: Int, height: Int, format: Int32) throws -> Crop {
        let o = geometry.orientation
        let natural = geometry.naturalSize
        let t = o.transform(naturalSize: natural)
        let r = geometry.cropRect
        // Inverse of x' = a·x + c·y + tx, y' = b·x + d·y + ty (the 2×2 part is orthogonal).
        func unorient(_ x: Double, _ y: Double) -> (Double, Double) {
            let (u, v) = (x - t.tx, y - t.ty)
            return (Double(o.a) * u + Double(o.b) * v, Double(o.c) * u + Double(o.d) * v)
        }
        let p0 = unorient(r.minX, r.minY), p1 = unorient(r.maxX, r.maxY)
        // Natural pixels to coded pixels (sample aspect).
        let sx = Double(width) / natural.width, sy = Double(height) / natural.height
        var x0 = Int((min(p0.0, p1.0) * sx).rounded()), x1 = Int((max(p0.0, p1.0) * sx).rounded())
        var y0 = Int((min(p0.1, p1.1) * sy).rounded()), y1 = Int((max(p0.1, p1.1) * sy).rounded())
        x0 = max(0, min(x0, width - 1)); y0 = max(0, min(y0, height - 1))
        x1 = max(x0 + 1, min(x1, width)); y1 = max(y0 + 1, min(y1, height))
        if let desc = av_pix_fmt_desc_get(AVPixelFormat(rawValue: format)) {
            let mx = (1 << Int(desc.pointee.log2_chroma_w)) - 1, my = (1 << Int(desc.pointee.log2_chroma_h)) - 1
            x0 &= ~mx
            y0 &= ~my
        }
        return Crop(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    private func scaler(_ slot: inout Scaler?, crop: Crop, format: Int32, to output: AVPixelFormat,
                        matrix: Int32, fullRange: Bool) throws -> Scaler {
        let key = Scaler.Key(sourceWidth: Int32(crop.width), sourceHeight: Int32(crop.height), sourceFormat: format,
                             width: Int32(scaledWidth), height: Int32(scaledHeight), format: output.rawValue,
                             sourceMatrix: matrix, sourceFullRange: fullRange)
        if let existing = slot, existing.key == key { return existing }
        let made = try Scaler(key)
        slot = made
        return made
    }

    private func croppedPlanes(_ frame: Frame, _ crop: Crop) -> ([UnsafePointer<UInt8>?], [Int32]) {
        let f = frame.pointer.pointee
        let desc = av_pix_fmt_desc_get(AVPixelFormat(rawValue: f.format))
        let cw = Int(desc?.pointee.log2_chroma_w ?? 0), ch = Int(desc?.pointee.log2_chroma_h ?? 0)
        let steps = [desc?.pointee.comp.0.step, desc?.pointee.comp.1.step, desc?.pointee.comp.2.step, 1].map { Int($0 ?? 1) }
        let data = [f.data.0, f.data.1, f.data.2, f.data.3]
        let lines = [f.linesize.0, f.linesize.1, f.linesize.2, f.linesize.3]
        var result: [UnsafePointer<UInt8>?] = []
        for plane in 0..<4 {
            guard let base = data[plane] else { result.append(nil); continue }
            let isChroma = plane == 1 || plane == 2
            let x = isChroma ? crop.x >> cw : crop.x
            let y = isChroma ? crop.y >> ch : crop.y
            result.append(UnsafePointer(base + y * Int(lines[plane]) + x * max(1, steps[plane])))
        }
        return (result, lines)
    }

    private func planes(_ frame: Frame) -> [UnsafeMutablePointer<UInt8>?] {
        let f = frame.pointer.pointee
        return [f.data.0, f.data.1, f.data.2, f.data.3]
    }

    private func lineSizes(_ frame: Frame) -> [Int32] {
        let f = frame.pointer.pointee
        return [f.linesize.0, f.linesize.1, f.linesize.2, f.linesize.3]
    }

    /// The frame's tagged YUV matrix as a libswscale colourspace; untagged: BT.709 from
    /// 720 lines up, else BT.601 (docs/rendering.md).
    static func sourceMatrix(_ f: AVFrame) -> Int32 {
        let tagged = f.colorspace.rawValue
        if tagged != AVCOL_SPC_UNSPECIFIED.rawValue, tagged != AVCOL_SPC_RGB.rawValue, (1...10).contains(Int(tagged)) {
            return Int32(tagged)
        }
        return f.height >= 720 ? SWS_CS_ITU709 : SWS_CS_ITU601
    }

    static func isFullRangeFormat(_ format: Int32) -> Bool {
        [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P].map(\.rawValue).contains(format)
    }
}
