import Foundation
import Testing
@testable import SessionKit

@Suite struct MediaLocatorTests {
    private func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("locator-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("project/media"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: dir.appendingPathComponent("project/media/a.mp4"))
        try Data("secret".utf8).write(to: dir.appendingPathComponent("outside.mp4"))
        return dir
    }

    /// A binary copied away from its looks says how to point it at them.
    @Test func withoutALooksDirectoryTheMessageNamesTheOptionAndTheVariable() throws {
        let locator = MediaLocator(sessionFile: try scratch().appendingPathComponent("project/s.json"), looksDirectory: nil)
        guard case .failure(let error) = locator.resolve("look:wilshire.png") else {
            Issue.record("a look resolved without a looks directory")
            return
        }
        #expect(error.description.contains("--looks") && error.description.contains("REEL_LOOKS"))
    }

    /// A URL is a reference of its own kind, parsed, never a path.
    @Test func aURLResolvesAsAURL() throws {
        let locator = MediaLocator(sessionFile: try scratch().appendingPathComponent("project/s.json"))
        guard case .success(.url(let url)) = locator.resolve("https://cdn.example/a.mp4?sig=1") else {
            Issue.record("not a URL")
            return
        }
        #expect(url.host == "cdn.example" && url.port == 443)
        guard case .failure(let error) = locator.resolve("ftp://cdn.example/a.mp4") else {
            Issue.record("ftp resolved")
            return
        }
        #expect(!error.description.isEmpty)
    }

    @Test func resolvesRelativeAndAbsolutePathsInsideTheRoot() throws {
        let dir = try scratch()
        let locator = MediaLocator(sessionFile: dir.appendingPathComponent("project/s.json"))
        guard case .success(.file(let url)) = locator.resolve("media/a.mp4") else { Issue.record("not resolved"); return }
        #expect(url.lastPathComponent == "a.mp4")
        let absolute = dir.appendingPathComponent("project/media/a.mp4").path
        guard case .success = locator.resolve(absolute) else { Issue.record("absolute not resolved"); return }
    }

    @Test func refusesDotDotAndSymlinksOutOfTheRoot() throws {
        let dir = try scratch()
        let locator = MediaLocator(sessionFile: dir.appendingPathComponent("project/s.json"))
        guard case .failure(let dots) = locator.resolve("../outside.mp4") else { Issue.record("escaped with .."); return }
        #expect(dots.description.contains("outside the media roots"))
        try FileManager.default.createSymbolicLink(at: dir.appendingPathComponent("project/media/link.mp4"),
                                                   withDestinationURL: dir.appendingPathComponent("outside.mp4"))
        guard case .failure(let link) = locator.resolve("media/link.mp4") else { Issue.record("escaped by symlink"); return }
        #expect(link.description.contains("outside the media roots"))
        guard case .failure = locator.resolve(dir.appendingPathComponent("outside.mp4").path) else { Issue.record("absolute escaped"); return }
        // The same file is fine once its directory is a configured root.
        let wide = MediaLocator(sessionFile: dir.appendingPathComponent("project/s.json"), mediaRoots: [dir])
        guard case .success = wide.resolve("../outside.mp4") else { Issue.record("root not honoured"); return }
    }

    @Test func missingFilesAndContentIDs() throws {
        let dir = try scratch()
        let locator = MediaLocator(sessionFile: dir.appendingPathComponent("project/s.json"))
        guard case .failure(let missing) = locator.resolve("media/none.mp4") else { Issue.record("missing resolved"); return }
        #expect(missing.description.contains("not found"))
        let hex = String(repeating: "0f", count: 32)
        #expect(locator.resolve("sha256:\(hex)") == .success(.contentID(hex)))
        guard case .failure = locator.resolve("sha256:XYZ") else { Issue.record("bad content id accepted"); return }
    }
}
