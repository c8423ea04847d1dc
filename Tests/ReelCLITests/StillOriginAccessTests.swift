import Foundation
import RenderEngine
import ReelTestSupport
import SessionKit
import Testing
@testable import Farm

/// A worker's pictures of a URL source are cached by the object's version, whoever asked
/// (docs/operations.md, "Sources by URL"). A client that learned the object's size and
/// ETag could name it without the URL's credential and be served another tenant's
/// cached picture: the origin must accept each request's own credential first.
@Suite(.serialized) struct StillOriginAccessTests {
    @Test func aCachedPictureOfAURLIsServedOnlyToARequestTheOriginLetsRead() throws {
        let farm = try FarmFixture()
        #expect(try TestEnvironment.reel(["sample", "clip.mp4", "--duration", "1", "--size", "160x90"], in: farm.dir).status == 0)
        let bytes = try Data(contentsOf: farm.dir.appendingPathComponent("clip.mp4"))
        let origin = try MisbehavingOrigin(serving: bytes)
        origin.require(credential: "sig=hush-hush")
        try farm.startCoordinator(URLSourceTests.allow)
        try farm.startWorker("a", URLSourceTests.allow)
        let client = try FarmClient(endpoint: farm.endpoint)
        client.timeoutSeconds = 60

        /// A thumbnail request naming the clip at `url`, pinned as its owner's client pins it.
        func ask(_ url: String) throws -> StillsReply {
            let object = OriginObject(url: try MediaURL.parse(url).get(), size: Int64(bytes.count), etag: "\"v1-\(bytes.count)\"",
                                      lastModified: nil, contentType: "video/mp4")
            let still = StillRequest(kind: .thumbnail, segment: 0, time: SessionTime(seconds: 0.5), box: Size(width: 80, height: 45))
            let request = StillsRequest(requestID: UUID().uuidString, session: #"{"video": {"videoSegments": [{"source": "\#(url)"}]}}"#,
                                        files: [:], paths: [:], stills: [still], origins: [url: object])
            return try client.request(.stills, request).decode(StillsReply.self)
        }

        let owner = try ask(origin.url())
        #expect(owner.error == nil && owner.results.map(\.cached) == [false], "\(owner)")

        // The same object without the credential, then with a guessed one: the origin is
        // asked with each and refuses; nothing of the cached picture comes back.
        for query in ["", "sig=guess"] {
            let refusals = origin.credentialRefusals
            let forged = try ask(origin.url(query: query))
            #expect(forged.results.isEmpty && forged.error?.code == .originRefused, "\(forged)")
            // The origin's own answer, though its error page is longer than the byte asked for.
            let message = forged.error?.message ?? ""
            #expect(message.contains("403 Forbidden") && !message.contains("byte ranges"), "\(message)")
            #expect(origin.credentialRefusals == refusals + 1)
            #expect(!"\(forged)".contains("hush-hush"))
        }

        // The owner again: served from the cache after one conditional read (the origin's
        // answer had no lifetime).
        var asked = origin.requestCount
        let again = try ask(origin.url())
        #expect(again.results.map(\.cached) == [true], "\(again)")
        #expect(origin.requestCount == asked + 1)

        // With a lifetime, the origin's yes is remembered for it: one read, then none.
        origin.require(credential: "sig=hush-hush", cacheControl: "public, max-age=60")
        asked = origin.requestCount
        for _ in 0..<3 { #expect(try ask(origin.url()).results.map(\.cached) == [true]) }
        #expect(origin.requestCount == asked + 1)
    }
}
