import Foundation
import Testing
@testable import SessionKit

private func decode(_ json: String) throws -> Session {
    try SessionDocument.decode(Data(json.utf8))
}

private func decodeError(_ json: String) -> SessionDocumentError? {
    do {
        _ = try SessionDocument.decode(Data(json.utf8))
        return nil
    } catch {
        return error
    }
}

private func roundTrip<T: Codable & Equatable>(_ value: T) throws -> T {
    let data = try SessionDocument.makeEncoder().encode(value)
    return try SessionDocument.makeDecoder().decode(T.self, from: data)
}

@Suite struct CodingTests {
    static let full = """
    {
      "formatIdentifier": "com.reelfarm.session", "formatVersion": "1.0",
      "sessionID": "6A1C0E4B-1111-4C8E-9E55-0123456789AB",
      "dateCreated": "2026-11-01T10:20:30.250Z", "dateModified": 815000000,
      "source": "com.example.editor", "isTransient": false, "hidden": true,
      "userInfo": {"tags": ["a", 1, 2.5, true, null], "nested": {"k": "v"}},
      "location": {"latitude": 48.8584, "longitude": 2.2945},
      "video": {
        "renderSize": [1280, 720], "speedMultiplier": 1.5, "frameDuration": {"value": 1, "timescale": 30},
        "filters": [{"type": "contrast", "normalizedIntensity": 0.25}],
        "primaryFilter": {"type": "lut", "file": "looks/teal.cube", "normalizedIntensity": 80, "displayName": "Teal"},
        "videoSegments": [
          {"source": "clips/a.mp4", "trimStartTime": {"value": 60, "timescale": 30}, "trimDuration": 2.5,
           "speedMultiplier": 2, "preferredTransform": [0, 1, -1, 0, 1080, 0],
           "cropRect": [[0, 100], [1080, 607.5]], "frameDuration": 0.04,
           "filters": [{"type": "brightness", "normalizedIntensity": -0.5, "version": 2, "radius": 3}],
           "location": {"latitude": -33.86, "longitude": 151.21, "altitude": 12}},
          {"source": "sha256:\(String(repeating: "ab", count: 32))"}
        ]
      }
    }
    """

    @Test func decodesEveryFieldOfTheModel() throws {
        let s = try decode(Self.full)
        #expect(s.sessionID == "6A1C0E4B-1111-4C8E-9E55-0123456789AB")
        #expect(s.hidden == true && s.isTransient == false)
        #expect(s.source == "com.example.editor")
        #expect(s.location == Location(latitude: 48.8584, longitude: 2.2945))
        #expect(s.dateModified == Date(timeIntervalSinceReferenceDate: 815_000_000))
        #expect(s.dateCreated.map { abs($0.timeIntervalSince1970 - 1_793_528_430.25) < 0.001 } == true)
        let video = try #require(s.video)
        #expect(video.renderSize == Size(width: 1280, height: 720))
        #expect(video.speedMultiplier == 1.5)
        #expect(video.primaryFilter?.file == "looks/teal.cube")
        let a = video.videoSegments[0]
        #expect(a.trimStartTime?.rational == Rational(2))
        #expect(a.trimDuration?.rational == Rational(5, 2))
        #expect(a.frameDuration?.rational == Rational(1, 25))
        #expect(a.preferredTransform == SessionTransform(a: 0, b: 1, c: -1, d: 0, tx: 1080, ty: 0))
        #expect(a.cropRect == Rect(x: 0, y: 100, width: 1080, height: 607.5))
        #expect(a.filters[0].version == "2")
        #expect(a.filters[0].parameters["radius"] == .integer(3))
        #expect(a.location?.altitude == 12)
        #expect(video.videoSegments[1].trimDuration == nil)
        if case .object(let info)? = s.userInfo, case .array(let tags)? = info["tags"] {
            #expect(tags == [.string("a"), .integer(1), .number(2.5), .bool(true), .null])
        } else {
            Issue.record("userInfo did not decode as an object with an array")
        }
    }

    @Test func canonicalEncodingRoundTrips() throws {
        let s = try decode(Self.full)
        let data = try SessionDocument.encode(s)
        let again = try SessionDocument.decode(data)
        #expect(again == s)
        // Canonical twice gives the same bytes.
        #expect(try SessionDocument.encode(again) == data)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"timescale\" : 2"))   // 2.5 s became 5/2
        #expect(!text.contains("\"width\""))          // geometry in Apple's array form
        #expect(text.contains("\"2026-11-01T10:20:30.250Z\""))  // dates in UTC, with the zone
    }

    @Test func everyTypeRoundTrips() throws {
        #expect(try roundTrip(SessionTime(value: 1001, timescale: 30000)) == SessionTime(value: 1001, timescale: 30000))
        #expect(try roundTrip(Size(width: 1920, height: 1080)) == Size(width: 1920, height: 1080))
        #expect(try roundTrip(Rect(x: 1.5, y: 2, width: 3, height: 4)) == Rect(x: 1.5, y: 2, width: 3, height: 4))
        let t = SessionTransform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: 720)
        #expect(try roundTrip(t) == t)
        let filter = SessionFilter(type: "lut", normalizedIntensity: 55, displayName: "Warm", version: "3",
                                   file: "looks/warm.cube", parameters: ["extra": .array([.integer(1), .string("x")])])
        #expect(try roundTrip(filter) == filter)
        let segment = SessionVideoSegment(source: "a.mp4", trimStartTime: SessionTime(value: 3, timescale: 2),
                                          trimDuration: SessionTime(value: 1, timescale: 1), speedMultiplier: 0.5,
                                          preferredTransform: t, cropRect: Rect(x: 0, y: 0, width: 10, height: 10),
                                          filters: [filter], frameDuration: SessionTime(value: 1, timescale: 24),
                                          location: Location(latitude: 1, longitude: 2))
        #expect(try roundTrip(segment) == segment)
        let video = SessionVideo(videoSegments: [segment], renderSize: Size(width: 640, height: 360), speedMultiplier: 2,
                                 filters: [filter], primaryFilter: filter, frameDuration: SessionTime(value: 1, timescale: 30))
        #expect(try roundTrip(video) == video)
        let image = SessionImage(source: "p.jpg", cropRect: Rect(x: 0, y: 0, width: 5, height: 5),
                                 preferredTransform: .identity, renderSize: Size(width: 4, height: 4),
                                 filters: [filter], primaryFilter: nil)
        #expect(try roundTrip(image) == image)
        let session = Session(image: image, sessionID: "x", dateCreated: Date(timeIntervalSince1970: 1_700_000_000.5),
                              userInfo: .object(["a": .null]), location: Location(latitude: 0, longitude: 0))
        #expect(try roundTrip(session) == session)
        #expect(try roundTrip(JSONValue.object(["k": .array([.bool(false), .number(0.5)])]))
                == .object(["k": .array([.bool(false), .number(0.5)])]))
    }

    @Test func acceptsEveryEncodingOfTimeAndGeometry() throws {
        let decoder = SessionDocument.makeDecoder()
        func time(_ j: String) throws -> SessionTime { try decoder.decode(SessionTime.self, from: Data(j.utf8)) }
        #expect(try time(#"{"value": 60, "timescale": 30}"#).rational == Rational(2))
        #expect(try time(#"{"value": 60, "timescale": 30, "flags": 1, "epoch": 0}"#).rational == Rational(2))
        #expect(try time("2.5").rational == Rational(5, 2))
        #expect(try time("0.04").rational == Rational(1, 25))
        #expect(try decoder.decode(Size.self, from: Data("[3, 4]".utf8)) == Size(width: 3, height: 4))
        #expect(try decoder.decode(Size.self, from: Data(#"{"width": 3, "height": 4}"#.utf8)) == Size(width: 3, height: 4))
        let rect = Rect(x: 1, y: 2, width: 3, height: 4)
        #expect(try decoder.decode(Rect.self, from: Data("[[1, 2], [3, 4]]".utf8)) == rect)
        #expect(try decoder.decode(Rect.self, from: Data(#"{"x": 1, "y": 2, "width": 3, "height": 4}"#.utf8)) == rect)
        #expect(try decoder.decode(Rect.self, from: Data(#"{"origin": {"x": 1, "y": 2}, "size": {"width": 3, "height": 4}}"#.utf8)) == rect)
        let t = SessionTransform(a: 0, b: 1, c: -1, d: 0, tx: 720, ty: 0)
        #expect(try decoder.decode(SessionTransform.self, from: Data("[0, 1, -1, 0, 720, 0]".utf8)) == t)
        #expect(try decoder.decode(SessionTransform.self, from: Data(#"{"a": 0, "b": 1, "c": -1, "d": 0, "tx": 720, "ty": 0}"#.utf8)) == t)
        #expect(throws: DecodingError.self) { try decoder.decode(Size.self, from: Data("[3, 4, 5]".utf8)) }
        #expect(throws: DecodingError.self) { try time(#"{"value": 1, "timescale": 0}"#) }
    }

    @Test func acceptsOlderVersionsAndRefusesNewerMajor() throws {
        #expect(try decode(#"{"formatVersion": "0.9", "video": {"videoSegments": []}}"#).formatVersion == "0.9")
        #expect(try decode(#"{"formatVersion": "1.7", "video": {"videoSegments": []}}"#).formatVersion == "1.7")
        let newer = decodeError(#"{"formatVersion": "2.0", "video": {"videoSegments": [], "newField": 1}}"#)
        #expect(newer?.path == "formatVersion")
        #expect(newer?.message.contains("newer") == true)
        #expect(decodeError(#"{"formatVersion": "banana"}"#)?.path == "formatVersion")
        #expect(decodeError(#"{"formatIdentifier": "com.other.app"}"#)?.path == "formatIdentifier")
        let defaults = try decode(#"{"video": {"videoSegments": []}}"#)
        #expect(defaults.formatIdentifier == "com.reelfarm.session" && defaults.formatVersion == "1.0")
    }

    @Test func decodingErrorsNameTheJSONPath() {
        let wrongType = decodeError(#"{"video": {"videoSegments": [{"source": "a"}, {"source": "b", "speedMultiplier": "fast"}]}}"#)
        #expect(wrongType?.path == "video.videoSegments[1].speedMultiplier")
        #expect(wrongType?.message.contains("number") == true)
        let missing = decodeError(#"{"video": {"videoSegments": [{"trimDuration": 1}]}}"#)
        #expect(missing?.path == "video.videoSegments[0].source")
        let badRect = decodeError(#"{"video": {"videoSegments": [{"source": "a", "cropRect": [[0, 0], [1]]}]}}"#)
        #expect(badRect?.path.hasPrefix("video.videoSegments[0].cropRect") == true)
    }

    @Test func malformedDocumentsFailCleanly() {
        #expect(decodeError(#"{"video": {"videoSegments": [{"source": "a""#)?.message.contains("not valid JSON") == true)
        #expect(decodeError("[1, 2]") != nil)
        #expect(decodeError("") != nil)
        let huge = decodeError(#"{"video": {"videoSegments": [{"source": "a", "trimStartTime": {"value": 99999999999999999999999, "timescale": 1}}]}}"#)
        #expect(huge?.path.hasPrefix("video.videoSegments[0].trimStartTime") == true)
        let hugeSeconds = decodeError(#"{"video": {"videoSegments": [{"source": "a", "trimDuration": 1e300}]}}"#)
        #expect(hugeSeconds?.path == "video.videoSegments[0].trimDuration")
        let deep = String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
        #expect(decodeError(#"{"userInfo": \#(deep), "video": {"videoSegments": []}}"#) != nil)
    }

    @Test func tenThousandSegmentsDecode() throws {
        let segment = #"{"source": "a.mp4", "trimDuration": 0.5}"#
        let json = #"{"video": {"videoSegments": ["# + Array(repeating: segment, count: 10_000).joined(separator: ",") + "]}}"
        #expect(try decode(json).video?.videoSegments.count == 10_000)
    }
}
