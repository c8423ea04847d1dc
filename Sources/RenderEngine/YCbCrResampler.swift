import CFFmpeg
import SessionKit

/// A decoded picture cropped and scaled to one planar Y′CbCr format at a fixed size, still
/// in its own matrix and range (docs/rendering.md, "Colour conversion"): libswscale only
/// resamples here, honouring the declared chroma siting, and changes no colour. A 4:2:0
/// target keeps a 4:2:0 source's siting; chroma made from 4:2:2 or 4:4:4 is sited as H.264
/// writes it (left). A source already in the target's layout at the target's size is read
/// in place. Used by one thread at a time.
final class YCbCrResampler {
    let format: AVPixelFormat
    let width: Int
    let height: Int
    private var scaler: Scaler?
    private var halfSize: HalfSizeResampler?
    private var frame: Frame?

    /// Planes of the resampled picture (or the source's own), strides in bytes.
    struct Picture {
        var y: UnsafePointer<UInt8>, yStride: Int
        var cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>, chromaStride: Int
        var siting: SourceColour.Siting
        /// Bits per sample (stored in 8 or 16-bit words).
        var bitDepth: Int
        /// The chroma planes are at luma resolution (4:4:4).
        var fullChroma: Bool
    }

    init(format: AVPixelFormat, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }

    /// `source`'s `crop` as this resampler's format and size; nil for pictures with alpha or RGB.
    func resample(_ source: Frame, crop: FrameProcessor.Crop, reading: FrameProcessor.Reading) throws -> Picture? {
        let f = source.pointer.pointee
        guard Scaler.isYUV(f.format), !FrameProcessor.hasAlpha(f.format),
              let sourceLayout = av_pix_fmt_desc_get(AVPixelFormat(rawValue: f.format)),
              let targetLayout = av_pix_fmt_desc_get(format) else { return nil }
        let sourceIs420 = sourceLayout.pointee.log2_chroma_w == 1 && sourceLayout.pointee.log2_chroma_h == 1
        let targetIs420 = targetLayout.pointee.log2_chroma_w == 1 && targetLayout.pointee.log2_chroma_h == 1
        let siting = sourceIs420 || !targetIs420 ? reading.colour.siting : .left
        let (sourcePlanes, strides) = FrameProcessor.croppedPlanes(source, crop)
        if Self.sameLayout(sourceLayout, targetLayout), crop.width == width, crop.height == height,
           let y = sourcePlanes[0], let cb = sourcePlanes[1], let cr = sourcePlanes[2], strides[1] == strides[2] {
            return Picture(y: y, yStride: Int(strides[0]), cb: cb, cr: cr, chromaStride: Int(strides[1]), siting: siting,
                           bitDepth: Int(sourceLayout.pointee.comp.0.depth), fullChroma: Self.shape(sourceLayout).chroma == .full)
        }
        if frame == nil { frame = try Frame(videoFormat: format, width: width, height: height) }
        guard let frame else { return nil }
        try frame.makeWritable()
        let sourceShape = Self.shape(sourceLayout), targetShape = Self.shape(targetLayout)
        if HalfSizeResampler.fits(source: sourceShape, target: targetShape, crop: crop, width: width, height: height),
           let y = sourcePlanes[0], let cb = sourcePlanes[1], let cr = sourcePlanes[2], strides[1] == strides[2] {
            return try resampleHalf(Self.planes(y, cb, cr, strides), depth: sourceShape.depth, siting: reading.colour.siting,
                                    into: frame, targetDepth: targetShape.depth)
        }
        let key = Scaler.Key(sourceWidth: Int32(crop.width), sourceHeight: Int32(crop.height), sourceFormat: f.format,
                             width: Int32(width), height: Int32(height), format: format.rawValue,
                             sourceMatrix: reading.table, sourceFullRange: reading.fullRange,
                             sourceSiting: reading.colour.siting, outputSiting: siting)
        if scaler?.key != key { scaler = try Scaler(key, outputMatrix: reading.table, outputFullRange: reading.fullRange) }
        let t = frame.pointer.pointee
        try scaler?.scale(source: sourcePlanes, sourceStrides: strides, destination: [t.data.0, t.data.1, t.data.2, t.data.3],
                          destinationStrides: [t.linesize.0, t.linesize.1, t.linesize.2, t.linesize.3])
        guard let y = t.data.0, let cb = t.data.1, let cr = t.data.2, t.linesize.1 == t.linesize.2 else { return nil }
        return Picture(y: y, yStride: Int(t.linesize.0), cb: cb, cr: cr, chromaStride: Int(t.linesize.1), siting: siting,
                       bitDepth: Int(targetLayout.pointee.comp.0.depth), fullChroma: Self.shape(targetLayout).chroma == .full)
    }

    /// A 4:2:0 crop at twice the size, by `HalfSizeResampler` into `frame` (4:4:4, so its
    /// chroma has no siting of its own to keep).
    private func resampleHalf(_ source: HalfSizeResampler.Planes, depth: Int, siting: SourceColour.Siting,
                              into frame: Frame, targetDepth: Int) throws -> Picture? {
        if halfSize == nil { halfSize = HalfSizeResampler(width: width, height: height) }
        let t = frame.pointer.pointee
        guard let halfSize, let y = t.data.0, let cb = t.data.1, let cr = t.data.2, t.linesize.1 == t.linesize.2 else { return nil }
        halfSize.resample(source, sourceDepth: depth, siting: siting,
                          into: HalfSizeResampler.Output(y: y, cb: cb, cr: cr, yStride: Int(t.linesize.0), chromaStride: Int(t.linesize.1)),
                          outputDepth: targetDepth)
        return Picture(y: y, yStride: Int(t.linesize.0), cb: cb, cr: cr, chromaStride: Int(t.linesize.1), siting: siting,
                       bitDepth: targetDepth, fullChroma: true)
    }

    private static func planes(_ y: UnsafePointer<UInt8>, _ cb: UnsafePointer<UInt8>, _ cr: UnsafePointer<UInt8>,
                               _ strides: [Int32]) -> HalfSizeResampler.Planes {
        HalfSizeResampler.Planes(y: y, cb: cb, cr: cr, yStride: Int(strides[0]), chromaStride: Int(strides[1]))
    }

    /// A planar, native-endian Y′CbCr layout's subsampling and depth (`.full`: 4:4:4).
    private static func shape(_ layout: UnsafePointer<AVPixFmtDescriptor>) -> HalfSizeResampler.Layout {
        let d = layout.pointee
        let planar = d.flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0 && d.flags & UInt64(AV_PIX_FMT_FLAG_BE) == 0
            && d.nb_components == 3 && d.comp.0.shift == 0
        let depth = Int(d.comp.0.depth), step = Int(d.comp.0.step)
        let stored = depth <= 8 ? step == 1 : step == 2
        let chroma: HalfSizeResampler.Layout.Chroma = !planar || !stored ? .other
            : d.log2_chroma_w == 1 && d.log2_chroma_h == 1 ? .half
            : d.log2_chroma_w == 0 && d.log2_chroma_h == 0 ? .full : .other
        return HalfSizeResampler.Layout(chroma: chroma, depth: depth)
    }

    /// Same subsampling, native-endian samples of the same size: readable as the target
    /// (a 10-bit source reads as 16-bit words holding 10 bits).
    private static func sameLayout(_ a: UnsafePointer<AVPixFmtDescriptor>, _ b: UnsafePointer<AVPixFmtDescriptor>) -> Bool {
        let bigEndian = UInt64(AV_PIX_FMT_FLAG_BE)
        return a.pointee.log2_chroma_w == b.pointee.log2_chroma_w && a.pointee.log2_chroma_h == b.pointee.log2_chroma_h
            && a.pointee.comp.0.step == b.pointee.comp.0.step && a.pointee.flags & bigEndian == b.pointee.flags & bigEndian
            && a.pointee.nb_components == 3 && (a.pointee.flags & UInt64(AV_PIX_FMT_FLAG_PLANAR)) != 0
            && (a.pointee.comp.0.step == 1 || a.pointee.comp.0.depth > 8)
    }
}
