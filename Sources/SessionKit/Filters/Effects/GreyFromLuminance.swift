/// An effect whose picture is grey and depends on the luminance alone (sketch,
/// edgeDetection): a picture that stays Y′CbCr gives it its luma and takes back the grey
/// as luma, with neutral chroma (docs/filters.md, "How the engine runs a chain").
public protocol GreyFromLuminance: PictureOperation {
    /// The grey, clamped to [0, 1], of each pixel of a luminance plane `width`×`height`.
    func grey(fromLuminance luma: [Float], width: Int, height: Int) -> [Float]
}

extension GreyFromLuminance {
    public func apply(_ source: PlanarPicture, into destination: inout PlanarPicture) {
        let grey = grey(fromLuminance: SobelGradient.luminance(of: source), width: source.width, height: source.height)
        for plane in [\PlanarPicture.r, \.g, \.b] {
            _ = destination[keyPath: plane].withUnsafeMutableBufferPointer { $0.update(fromContentsOf: grey) }
        }
    }
}
