import CFFmpeg
import Foundation
import SessionKit

/// Reads a GPUImage lookup image (docs/filters.md, "Lookups"): a 512×512 RGB or RGBA PNG.
/// Alpha is ignored. A PNG text chunk `reelfarm-stand-in` marks ReelFarm's own stand-in
/// for one of the SDK's looks, so the mark travels with the file to every machine.
public enum LookupImageFile {
    public static let standInKey = "reelfarm-stand-in"

    public struct Loaded: Sendable {
        public let table: LookupTable
        /// The look this image stands in for, when it is one of ReelFarm's stand-ins.
        public let standInFor: String?
    }

    public static func load(_ url: URL) throws -> Loaded {
        LibavLog.quiet()
        let frame: Frame
        do {
            frame = try VideoSource.firstFrame(path: url.path)
        } catch {
            throw EngineError("\(url.lastPathComponent): not a readable image (\(error))")
        }
        let f = frame.pointer.pointee
        let accepted = [AV_PIX_FMT_RGB24, AV_PIX_FMT_RGBA, AV_PIX_FMT_RGB48BE, AV_PIX_FMT_RGBA64BE].map(\.rawValue)
        guard f.width == Int32(LookupTable.side), f.height == Int32(LookupTable.side), accepted.contains(f.format) else {
            throw EngineError("\(url.lastPathComponent): a lookup image must be a 512×512 RGB(A) PNG; this is "
                + "\(f.width)×\(f.height) \(Scaler.name(f.format))")
        }
        let rgb = try Frame(videoFormat: AV_PIX_FMT_RGB24, width: LookupTable.side, height: LookupTable.side)
        let key = Scaler.Key(sourceWidth: f.width, sourceHeight: f.height, sourceFormat: f.format,
                             width: f.width, height: f.height, format: AV_PIX_FMT_RGB24.rawValue,
                             sourceMatrix: SWS_CS_ITU709, sourceFullRange: true)
        try Scaler(key).scale(source: [f.data.0, f.data.1, f.data.2, f.data.3].map { $0.map { UnsafePointer($0) } },
                              sourceStrides: [f.linesize.0, f.linesize.1, f.linesize.2, f.linesize.3],
                              destination: [rgb.pointer.pointee.data.0, nil, nil, nil],
                              destinationStrides: [rgb.pointer.pointee.linesize.0, 0, 0, 0])
        guard let base = rgb.pointer.pointee.data.0 else { throw EngineError("RGB frame has no data") }
        let stride = Int(rgb.pointer.pointee.linesize.0), rowBytes = LookupTable.side * 3
        var bytes = [UInt8](repeating: 0, count: rowBytes * LookupTable.side)
        for y in 0..<LookupTable.side {
            bytes.withUnsafeMutableBufferPointer { out in
                (out.baseAddress! + y * rowBytes).update(from: base + y * stride, count: rowBytes)
            }
        }
        let standIn = av_dict_get(f.metadata, standInKey, nil, 0).flatMap { $0.pointee.value.map { String(cString: $0) } }
        return Loaded(table: try LookupTable(rgb: bytes), standInFor: standIn)
    }
}
