import Foundation
import ReelTestSupport
import SessionKit
import Testing

/// Thousands of mutated sessions through the decoder, the validator and the timeline: each
/// either works or is refused with an error; none crashes or hangs, and whatever decodes
/// writes back to the same session.
struct SessionFuzzTests {
    static let seeds: [String] = ["sdk-session.json", "multi-segment.json", "simple.json", "image.json"]

    static func media(for session: Session) -> [String: MediaStatus] {
        var media: [String: MediaStatus] = [:]
        let info = MediaInfo(duration: Rational(10), frameDuration: Rational(1, 30)!, codedWidth: 1920, codedHeight: 1080,
                             hasAudio: true)
        for segment in session.video?.videoSegments ?? [] { media[segment.source] = .available(info) }
        if let image = session.image?.source {
            media[image] = .available(MediaInfo(duration: .zero, frameDuration: nil, codedWidth: 640, codedHeight: 480,
                                                isStillImage: true, codec: "png"))
        }
        return media
    }

    @Test(arguments: seeds) func mutatedSessionsAreDecodedOrRefusedNeverCrash(file: String) throws {
        let original = try Data(contentsOf: TestEnvironment.packageRoot.appendingPathComponent("examples/\(file)"))
        var mutator = SeededMutator(seed: UInt64(file.utf8.reduce(5381) { $0 &* 33 &+ Int($1) }.magnitude))
        var decoded = 0, valid = 0
        for round in 0..<1500 {
            let input = mutator.mutate(original, times: 1 + round % 4)
            guard let session = try? SessionDocument.decode(input) else { continue }
            decoded += 1
            // What decodes writes back canonically and reads the same.
            let again = try SessionDocument.decode(SessionDocument.encode(session))
            #expect(again == session, "seed \(file) round \(round)")
            let media = Self.media(for: session)
            let report = SessionValidator().validate(session, media: media)
            guard report.isValid, session.video != nil else { continue }
            valid += 1
            let infos = media.compactMapValues { if case .available(let info) = $0 { info } else { nil } }
            if let timeline = try? Timeline(session: session, media: infos) {
                let plan = Plan(timeline: timeline, keyframeIntervalSeconds: Rational(2))
                #expect(plan.videoShards.reduce(0) { $0 + $1.endFrame - $1.startFrame } == timeline.totalFrames)
            }
        }
        // The mutations reach past the decoder: some inputs decode, and some of those validate.
        #expect(decoded > 50, "only \(decoded) of 1500 mutated \(file) decoded")
        if file != "image.json" { #expect(valid > 10, "only \(valid) of \(decoded) decoded \(file) validated") }
    }

    /// Found by the fuzzer: a numeric date far outside ISO 8601's years decoded, and wrote
    /// back as a text the decoder refused; sub-millisecond dates did not write back equal.
    @Test func numericDatesAreBoundedAndKeptToTheMillisecond() throws {
        let far = #"{"dateCreated": -1e308, "video": {"videoSegments": [{"source": "a.mp4"}]}}"#
        #expect { try SessionDocument.decode(Data(far.utf8)) } throws: { "\($0)".contains("dateCreated") && "\($0)".contains("years 1 to 9999") }
        let fine = #"{"dateCreated": 1e-9, "video": {"videoSegments": [{"source": "a.mp4"}]}}"#
        let session = try SessionDocument.decode(Data(fine.utf8))
        #expect(session.dateCreated == Date(timeIntervalSinceReferenceDate: 0))
        #expect(try SessionDocument.decode(SessionDocument.encode(session)) == session)
    }
}
