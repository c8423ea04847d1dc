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
    /// Y′CbCr at the scaled size, in the source's matrix: 8-bit 4:2:0 for the engine's own
    /// conversions, 10 or 16-bit 4:2:0 for HDR sources, 4:4:4 for luma when the matrix
    /// changes and for a picture scaled to half its source or less (`chromaCovers`).
    private let yuv420p: YCbCrResampler
    private let yuv420p16: YCbCrResampler
    private let yuv420p10: YCbCrResampler
    private let yuv444p: YCbCrResampler
    private let yuv444p16: YCbCrResampler
    private let yuv444p10: YCbCrResampler
    /// Chroma at luma resolution for `YCbCrToBT709`.
    private var directChroma: ChromaUpsampler?
    private let rgb: Frame
    private let unoriented: Frame
    /// The oriented RGB picture, for chains that move pixels in a turned or mirrored
    /// segment (upright, the scaled picture is the oriented one).
    private let orientedRGB: Frame?
    private let workspace = FilterWorkspace()
    /// The one-pass path's rows (`processByRows`).
    private var rowScratch: YUVToRGB.Scratch?
    private var toYUV: RGBToYUV?
    /// HDR sources: the 16-bit RGB picture before the transfer is undone, and the converter.
    private var hdrRGB: Frame?
    private var hdr: HDRToSDR?
    /// The 16-bit conversion's rows (`YCbCrToRGB48`).
    private var rgb48Scratch: YCbCrToRGB48.Scratch?
    /// A distorted Y′CbCr picture's input (render size, made on first use).
    private var distortionInput: Frame?

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
        yuv420p = YCbCrResampler(format: AV_PIX_FMT_YUV420P, width: scaledWidth, height: scaledHeight)
        yuv420p16 = YCbCrResampler(format: AV_PIX_FMT_YUV420P16LE, width: scaledWidth, height: scaledHeight)
        yuv420p10 = YCbCrResampler(format: AV_PIX_FMT_YUV420P10LE, width: scaledWidth, height: scaledHeight)
        yuv444p = YCbCrResampler(format: AV_PIX_FMT_YUV444P, width: scaledWidth, height: scaledHeight)
        yuv444p16 = YCbCrResampler(format: AV_PIX_FMT_YUV444P16LE, width: scaledWidth, height: scaledHeight)
        yuv444p10 = YCbCrResampler(format: AV_PIX_FMT_YUV444P10LE, width: scaledWidth, height: scaledHeight)
        unoriented = try Frame(videoFormat: AV_PIX_FMT_YUV420P, width: scaledWidth, height: scaledHeight)
        orientedRGB = chain.needsOrientedPicture && geometry.orientation != .up
            ? try Frame(videoFormat: AV_PIX_FMT_RGB24, width: renderWidth, height: renderHeight) : nil
    }

    /// Crops and scales `source` into `rgb` (packed RGB24, BT.709 SDR), making an HDR
    /// source SDR on the way (docs/rendering.md, "HDR sources").
    private func scaleToRGB(_ source: Frame, crop: Crop, reading: Reading) throws {
        let f = source.pointer.pointee
        let (sourcePlanes, strides) = Self.croppedPlanes(source, crop)
        try rgb.makeWritable()
        if Self.hasAlpha(f.format) {
            try compositeOnBlack(source, crop: crop, reading: reading)
            return
        }
        guard let hdr = hdrConverter(for: f) else {
            if try convertOwn(source, crop: crop, reading: reading) { return }
            let scaler = try scaler(&toScaled, crop: crop, format: f.format, to: AV_PIX_FMT_RGB24, reading: reading)
            try scaler.scale(source: sourcePlanes, sourceStrides: strides, destination: planes(rgb), destinationStrides: lineSizes(rgb))
            return
        }
        // 16 bits per channel until the transfer is undone: no banding from an 8-bit step.
        if hdrRGB == nil { hdrRGB = try Frame(videoFormat: AV_PIX_FMT_RGB48LE, width: scaledWidth, height: scaledHeight) }
        guard let wide = hdrRGB else { return }
        try wide.makeWritable()
        if try !hdrSourceToRGB48(source, crop: crop, reading: reading, into: wide) {
            let scaler = try scaler(&toScaled, crop: crop, format: f.format, to: AV_PIX_FMT_RGB48LE, reading: reading)
            try scaler.scale(source: sourcePlanes, sourceStrides: strides, destination: planes(wide), destinationStrides: lineSizes(wide))
        }
        guard let from = wide.pointer.pointee.data.0, let to = rgb.pointer.pointee.data.0 else {
            throw EngineError("RGB frame has no data")
        }
        hdr.convert(from, sourceStride: Int(wide.pointer.pointee.linesize.0), into: to,
                    destinationStride: Int(rgb.pointer.pointee.linesize.0), width: scaledWidth, height: scaledHeight)
    }

    /// An HDR Y′CbCr source as RGB48 at the scaled size: cropped and scaled in Y′CbCr at its
    /// own depth up to 10 bits, else 16 (libswscale, no colour change), then
    /// `YCbCrToRGB48`, whose linear chroma interpolation is the reference's; 4:4:4 for a
    /// picture scaled to half its source or less, which keeps the source's chroma. False for
    /// sources that are not Y′CbCr. Why 10 bits for a 10-bit source: libswscale scales
    /// to 16 bits through 19-bit intermediates in C, 5 times the time of its vectorised
    /// 15-bit path (docs/rendering.md, "HDR sources").
    private func hdrSourceToRGB48(_ source: Frame, crop: Crop, reading: Reading, into wide: Frame) throws -> Bool {
        let depth = av_pix_fmt_desc_get(AVPixelFormat(rawValue: source.pointer.pointee.format))?.pointee.comp.0.depth ?? 16
        let full = Self.chromaCovers(source, crop: crop, width: scaledWidth, height: scaledHeight)
        let resampler = switch (depth <= 10, full) {
        case (true, false): yuv420p10
        case (false, false): yuv420p16
        case (true, true): yuv444p10
        case (false, true): yuv444p16
        }
        guard let picture = try resampler.resample(source, crop: crop, reading: reading),
              let out = wide.pointer.pointee.data.0 else { return false }
        var colour = reading.colour
        colour.siting = picture.siting
        func samples(_ p: UnsafePointer<UInt8>) -> UnsafePointer<UInt16> { UnsafeRawPointer(p).assumingMemoryBound(to: UInt16.self) }
        if rgb48Scratch?.width != scaledWidth { rgb48Scratch = YCbCrToRGB48.Scratch(width: scaledWidth) }
        guard let scratch = rgb48Scratch else { return false }
        YCbCrToRGB48(colour, fullRange: reading.fullRange, bitDepth: picture.bitDepth, fullChroma: picture.fullChroma).convert(
            y: samples(picture.y), yStride: picture.yStride / 2, cb: samples(picture.cb), cr: samples(picture.cr),
            chromaStride: picture.chromaStride / 2, width: scaledWidth, height: scaledHeight,
            into: UnsafeMutableRawPointer(out).assumingMemoryBound(to: UInt16.self),
            rgbStride: Int(wide.pointer.pointee.linesize.0) / 2, scratch: scratch)
        return true
    }

    /// SDR Y′CbCr: crop and scale in Y′CbCr (libswscale, no colour change), then
    /// `YUVToRGB` into `rgb`. False when the source needs libswscale's path.
    private func convertOwn(_ source: Frame, crop: Crop, reading: Reading) throws -> Bool {
        guard let input = try ownConversionInput(source, crop: crop, reading: reading),
              let out = rgb.pointer.pointee.data.0 else { return false }
        input.converter.convert(y: input.picture.y, yStride: input.picture.yStride, cb: input.picture.cb, cr: input.picture.cr,
                                chromaStride: input.picture.chromaStride, width: scaledWidth, height: scaledHeight,
                                into: out, rgbStride: Int(rgb.pointer.pointee.linesize.0))
        return true
    }

    /// The scaled Y′CbCr picture the engine's own conversion reads, and the conversion.
    private struct OwnConversionInput {
        var picture: YCbCrResampler.Picture
        var converter: YUVToRGB
    }

    /// A picture scaled to half its source's size or less keeps the source's chroma: 4:4:4
    /// at the scaled size, read without interpolation (docs/rendering.md, "Colour
    /// conversion"); otherwise 4:2:0, interpolated where the stream sites it.
    private func ownConversionInput(_ source: Frame, crop: Crop, reading: Reading) throws -> OwnConversionInput? {
        let resampler = Self.chromaCovers(source, crop: crop, width: scaledWidth, height: scaledHeight) ? yuv444p : yuv420p
        guard let picture = try resampler.resample(source, crop: crop, reading: reading) else { return nil }
        var colour = reading.colour
        colour.siting = picture.siting
        return OwnConversionInput(picture: picture,
                                  converter: YUVToRGB(colour, fullRange: reading.fullRange, fullChroma: picture.fullChroma))
    }

    /// Whether `source`'s chroma planes, cropped to `crop`, have a sample for every pixel of
    /// a `width × height` picture (a 4K 4:2:0 source scaled to 1080p or less).
    static func chromaCovers(_ source: Frame, crop: Crop, width: Int, height: Int) -> Bool {
        guard let layout = av_pix_fmt_desc_get(AVPixelFormat(rawValue: source.pointer.pointee.format)) else { return false }
        return crop.width >> Int(layout.pointee.log2_chroma_w) >= width && crop.height >> Int(layout.pointee.log2_chroma_h) >= height
    }

    /// A source with more chroma than 4:2:0 (4:2:2, 4:4:4) as 4:4:4 at the scaled size, so
    /// that luma takes its own chroma when the matrix changes; nil for 4:2:0 sources.
    private func fullChroma(_ source: Frame, crop: Crop, reading: Reading) throws -> YCbCrToBT709.FullChroma? {
        guard let desc = av_pix_fmt_desc_get(AVPixelFormat(rawValue: source.pointer.pointee.format)),
              desc.pointee.log2_chroma_w == 0 || desc.pointee.log2_chroma_h == 0,
              let picture = try yuv444p.resample(source, crop: crop, reading: reading) else { return nil }
        return YCbCrToBT709.FullChroma(cb: picture.cb, cr: picture.cr, stride: picture.chromaStride)
    }

    /// Without filters a picture stays Y′CbCr (docs/rendering.md, "Colour conversion"):
    /// BT.709 limited sources are cropped and scaled into `target` by libswscale; other
    /// matrices and full range go through `YCbCrToBT709`, which keeps chroma exact. False
    /// when the picture needs RGB (alpha).
    private func convertDirect(_ source: Frame, crop: Crop, reading: Reading, into target: Frame) throws -> Bool {
        let f = source.pointer.pointee
        guard Scaler.isYUV(f.format), !Self.hasAlpha(f.format) else { return false }
        if reading.colour.matrix == .bt709, !reading.fullRange {
            let scaler = try scaler(&toScaled, crop: crop, format: f.format, to: AV_PIX_FMT_YUV420P, reading: reading,
                                    outputSiting: .left)
            let (sourcePlanes, strides) = Self.croppedPlanes(source, crop)
            try scaler.scale(source: sourcePlanes, sourceStrides: strides,
                             destination: planes(target), destinationStrides: lineSizes(target))
            return true
        }
        guard let picture = try yuv420p.resample(source, crop: crop, reading: reading) else { return false }
        let t = target.pointer.pointee
        guard let y = t.data.0, let cb = t.data.1, let cr = t.data.2, t.linesize.1 == t.linesize.2 else {
            throw EngineError("frame has no data")
        }
        if directChroma?.width != scaledWidth || directChroma?.siting != picture.siting {
            directChroma = ChromaUpsampler(width: scaledWidth, siting: picture.siting)
        }
        guard let directChroma else { return false }
        var colour = reading.colour
        colour.siting = picture.siting
        let fullChroma = try fullChroma(source, crop: crop, reading: reading)
        YCbCrToBT709(colour, fullRange: reading.fullRange).convert(
            y: picture.y, yStride: picture.yStride, cb: picture.cb, cr: picture.cr, chromaStride: picture.chromaStride,
            width: scaledWidth, height: scaledHeight,
            into: RGBToYUV.Output(y: y, yStride: Int(t.linesize.0), cb: cb, cr: cr, chromaStride: Int(t.linesize.1)),
            chroma: directChroma, fullChroma: fullChroma)
        return true
    }

    /// The common case in one pass, row by row, without a picture-sized RGB frame: each
    /// row is converted to planar RGB, run through a chain that `runsByRow`, and converted
    /// back into `target`, all while it is in the processor's cache. The same arithmetic as
    /// the separate passes, so the same bits. False when the source needs another path.
    private func processByRows(_ source: Frame, crop: Crop, reading: Reading, into target: Frame) throws -> Bool {
        let f = source.pointer.pointee
        guard chain.runsByRow, !Self.hasAlpha(f.format), hdrConverter(for: f) == nil,
              let input = try ownConversionInput(source, crop: crop, reading: reading) else { return false }
        let t = target.pointer.pointee
        guard let y = t.data.0, let cb = t.data.1, let cr = t.data.2, t.linesize.1 == t.linesize.2 else {
            throw EngineError("frame has no data")
        }
        if rowScratch?.width != scaledWidth || rowScratch?.chroma.siting != input.converter.siting
            || rowScratch?.chroma.full != input.converter.fullChroma {
            rowScratch = YUVToRGB.Scratch(width: scaledWidth, siting: input.converter.siting, fullChroma: input.converter.fullChroma)
        }
        if toYUV == nil { toYUV = RGBToYUV(width: scaledWidth, height: scaledHeight) }
        guard let scratch = rowScratch, let toYUV else { return false }
        toYUV.start(RGBToYUV.Output(y: y, yStride: Int(t.linesize.0), cb: cb, cr: cr, chromaStride: Int(t.linesize.1)))
        let row = scratch.rgb
        for line in 0..<scaledHeight {
            input.converter.convertRow(line, y: input.picture.y, yStride: input.picture.yStride, cb: input.picture.cb, cr: input.picture.cr,
                                       chromaStride: input.picture.chromaStride, height: scaledHeight, scratch: scratch)
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
    private func compositeOnBlack(_ source: Frame, crop: Crop, reading: Reading) throws {
        let f = source.pointer.pointee
        let (sourcePlanes, strides) = Self.croppedPlanes(source, crop)
        let rgba = try Frame(videoFormat: AV_PIX_FMT_RGBA, width: crop.width, height: crop.height)
        let toRGBA = try Scaler(Scaler.Key(sourceWidth: Int32(crop.width), sourceHeight: Int32(crop.height), sourceFormat: f.format,
                                           width: Int32(crop.width), height: Int32(crop.height), format: AV_PIX_FMT_RGBA.rawValue,
                                           sourceMatrix: reading.table, sourceFullRange: reading.fullRange, sourceSiting: reading.colour.siting))
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
                                reading: Reading(colour: reading.colour, fullRange: true))
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
        let reading = Self.reading(f)
        let isHDR = f.color_trc == AVCOL_TRC_ARIB_STD_B67 || f.color_trc == AVCOL_TRC_SMPTE2084
        if chain.distortion != nil, !isHDR, try distortInYCbCr(source, crop: crop, reading: reading, into: output) {
            return
        }
        if chain.greyFromLuminance != nil, !isHDR, try greyInYCbCr(source, crop: crop, reading: reading, into: output) {
            return
        }
        if chain.needsOrientedPicture {
            try scaleToRGB(source, crop: crop, reading: reading)
            let picture = try orientedRGB.map { try orientAndFilter(into: $0) } ?? filterInPlace(rgb)
            try output.makeWritable()
            try convertToYUV(picture, width: renderWidth, height: renderHeight, into: output)
            return
        }
        let oriented = geometry.orientation == .up
        let target = oriented ? output : unoriented
        try target.makeWritable()

        if chain.isIdentity, !isHDR, try convertDirect(source, crop: crop, reading: reading, into: target) {
            // Stayed Y′CbCr.
        } else if try processByRows(source, crop: crop, reading: reading, into: target) {
            // Converted, filtered and converted back in one pass.
        } else {
            try scaleToRGB(source, crop: crop, reading: reading)
            if let pixels = rgb.pointer.pointee.data.0 {
                chain.apply(rgb: pixels, width: scaledWidth, height: scaledHeight, stride: Int(rgb.pointer.pointee.linesize.0),
                            workspace: workspace)
            }
            try convertToYUV(rgb, width: scaledWidth, height: scaledHeight, into: target)
        }
        if !oriented {
            try output.makeWritable()
            orientPlanes(from: unoriented, into: output)
        }
    }

    /// A chain that only moves pixels (one distortion), on a picture that can stay Y′CbCr: converted as
    /// without filters (`convertDirect`), oriented plane by plane, then each plane through
    /// the distortion's sample maps (`FilterChain.applyToPlanes`). Bilinear reads commute
    /// with the linear RGB ↔ Y′CbCr matrices, so this is the RGB path's picture without its
    /// two conversions (docs/filters.md, "How the engine runs a chain"). False when the
    /// source needs RGB.
    private func distortInYCbCr(_ source: Frame, crop: Crop, reading: Reading, into output: Frame) throws -> Bool {
        let input = try distortionInput ?? Frame(videoFormat: AV_PIX_FMT_YUV420P, width: renderWidth, height: renderHeight)
        distortionInput = input
        guard try convertOriented(source, crop: crop, reading: reading, into: input) else { return false }
        try output.makeWritable()
        chain.applyToPlanes(source: try input.ycbcrPlanes(), destination: try output.ycbcrPlanes(),
                            width: renderWidth, height: renderHeight, workspace: workspace)
        return true
    }

    /// A chain that is one grey effect of luminance (sketch, edgeDetection), on a picture
    /// that can stay Y′CbCr: converted as without filters, oriented, then the effect on its
    /// luma (`FilterChain.applyGrey`; docs/filters.md, "How the engine runs a chain"). False
    /// when the source needs RGB.
    private func greyInYCbCr(_ source: Frame, crop: Crop, reading: Reading, into output: Frame) throws -> Bool {
        guard try convertOriented(source, crop: crop, reading: reading, into: output) else { return false }
        chain.applyGrey(to: try output.ycbcrPlanes(), width: renderWidth, height: renderHeight)
        return true
    }

    /// The picture as without filters (`convertDirect`), oriented, in `destination` (the
    /// render size). False when the source needs RGB.
    private func convertOriented(_ source: Frame, crop: Crop, reading: Reading, into destination: Frame) throws -> Bool {
        let upright = geometry.orientation == .up
        let target = upright ? destination : unoriented
        try target.makeWritable()
        guard try convertDirect(source, crop: crop, reading: reading, into: target) else { return false }
        if !upright {
            try destination.makeWritable()
            orientPlanes(from: unoriented, into: destination)
        }
        return true
    }

    /// Turns or mirrors the three planes of `source` (the scaled size) into `destination`
    /// (the render size).
    private func orientPlanes(from source: Frame, into destination: Frame) {
        let o = destination.pointer.pointee, u = source.pointer.pointee
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
        return try filterInPlace(destination)
    }

    /// Runs the chain on `picture` (packed RGB24 at the render size) where it is.
    private func filterInPlace(_ picture: Frame) throws -> Frame {
        guard let pixels = picture.pointer.pointee.data.0 else { throw EngineError("RGB frame has no data") }
        chain.apply(rgb: pixels, width: renderWidth, height: renderHeight, stride: Int(picture.pointer.pointee.linesize.0),
                    workspace: workspace)
        return picture
    }

    /// The processed picture as packed RGB24, oriented (for still images).
    func processRGB(_ source: Frame) throws -> Frame {
        let f = source.pointer.pointee
        let crop = try sourceCrop(width: Int(f.width), height: Int(f.height), format: f.format)
        let reading = Self.reading(f)
        try scaleToRGB(source, crop: crop, reading: reading)
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
                        reading: Reading, outputSiting: SourceColour.Siting? = nil) throws -> Scaler {
        let key = Scaler.Key(sourceWidth: Int32(crop.width), sourceHeight: Int32(crop.height), sourceFormat: format,
                             width: Int32(scaledWidth), height: Int32(scaledHeight), format: output.rawValue,
                             sourceMatrix: reading.table, sourceFullRange: reading.fullRange, sourceSiting: reading.colour.siting,
                             outputSiting: outputSiting)
        if let existing = slot, existing.key == key { return existing }
        let made = try Scaler(key)
        slot = made
        return made
    }

    static func croppedPlanes(_ frame: Frame, _ crop: Crop) -> ([UnsafePointer<UInt8>?], [Int32]) {
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

    /// How a decoded picture's Y′CbCr is read: its colour (`SourceColour`: the declared
    /// matrix and chroma siting, or what players assume) and its range.
    struct Reading {
        var colour: SourceColour
        var fullRange: Bool
        /// The matrix as a libswscale coefficient table.
        var table: Int32 {
            switch colour.matrix {
            case .bt709: SWS_CS_ITU709
            case .bt601: SWS_CS_ITU601
            case .bt2020: SWS_CS_BT2020
            case .fcc: SWS_CS_FCC
            case .smpte240m: SWS_CS_SMPTE240M
            }
        }
    }

    static func reading(_ f: AVFrame) -> Reading {
        func name(_ c: UnsafePointer<CChar>?) -> String? { c.map { String(cString: $0) } }
        let fullRange = f.color_range == AVCOL_RANGE_JPEG || isFullRangeFormat(f.format)
        let colour = SourceColour(
            matrixTag: f.colorspace == AVCOL_SPC_UNSPECIFIED ? nil : name(av_color_space_name(f.colorspace)),
            chromaLocationTag: f.chroma_location == AVCHROMA_LOC_UNSPECIFIED ? nil : name(av_chroma_location_name(f.chroma_location)),
            codedHeight: Int(f.height), isJPEG: isFullRangeFormat(f.format))
        return Reading(colour: colour, fullRange: fullRange)
    }

    static func isFullRangeFormat(_ format: Int32) -> Bool {
        [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P].map(\.rawValue).contains(format)
    }
}
