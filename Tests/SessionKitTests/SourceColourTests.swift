import SessionKit
import Testing

/// How a source's Y′CbCr is read (docs/rendering.md, "Colour conversion"): what the stream
/// declares, else what players assume.
@Suite struct SourceColourTests {
    @Test(arguments: [("smpte170m", SourceColour.Matrix.bt601), ("bt470bg", .bt601), ("bt709", .bt709),
                      ("bt2020nc", .bt2020), ("fcc", .fcc), ("smpte240m", .smpte240m)])
    func aDeclaredMatrixIsRead(tag: String, matrix: SourceColour.Matrix) {
        // Declared, so the picture's height does not matter.
        for height in [360, 2160] {
            let colour = SourceColour(matrixTag: tag, chromaLocationTag: "left", codedHeight: height)
            #expect(colour.matrix == matrix)
            #expect(colour.matrixDescription == matrix.rawValue)
        }
    }

    @Test func untaggedPicturesAreStandardDefinitionUpTo576Lines() {
        for (height, expected) in [(180, "bt601 (assumed)"), (480, "bt601 (assumed)"), (576, "bt601 (assumed)"),
                                   (577, "bt709 (assumed)"), (720, "bt709 (assumed)"), (1080, "bt709 (assumed)")] {
            let colour = SourceColour(matrixTag: nil, chromaLocationTag: nil, codedHeight: height)
            #expect(colour.matrixDescription == expected, "\(height) lines")
        }
        // A matrix libavutil names but nobody uses for video is read as untagged.
        #expect(SourceColour(matrixTag: "ycgco", chromaLocationTag: nil, codedHeight: 1080).matrixDescription == "bt709 (assumed)")
    }

    @Test func chromaSitsWhereTheStreamSaysElseWhereItsCodecPutsIt() {
        #expect(SourceColour(matrixTag: nil, chromaLocationTag: "topleft", codedHeight: 1080).sitingDescription == "topleft")
        #expect(SourceColour(matrixTag: nil, chromaLocationTag: "center", codedHeight: 1080).sitingDescription == "center")
        #expect(SourceColour(matrixTag: nil, chromaLocationTag: nil, codedHeight: 1080).sitingDescription == "left (assumed)")
        #expect(SourceColour(matrixTag: nil, chromaLocationTag: nil, codedHeight: 1080, isJPEG: true).sitingDescription
            == "center (assumed)")
    }

    @Test func lumaWeightsAreTheStandardsOwn() {
        #expect(SourceColour.Matrix.bt709.lumaWeights == (0.2126, 0.0722))
        #expect(SourceColour.Matrix.bt601.lumaWeights == (0.299, 0.114))
        #expect(SourceColour.Matrix.bt2020.lumaWeights == (0.2627, 0.0593))
    }
}
