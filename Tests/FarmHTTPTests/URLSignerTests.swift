import Foundation
import Testing
@testable import FarmHTTP

/// Signed URLs: good for their one path and parameters, until they expire, with this key.
struct URLSignerTests {
    static func query(_ url: String) -> (String, [(String, String)]) {
        let parts = url.split(separator: "?", maxSplits: 1)
        let items = parts.count > 1 ? parts[1].split(separator: "&").map { item -> (String, String) in
            let pair = item.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            return (pair[0], pair.count > 1 ? pair[1] : "")
        } : []
        return (String(parts[0]), items)
    }

    @Test func aSignedURLVerifiesForItsPathParametersAndLifetimeOnly() {
        let signer = URLSigner(secret: Data("a server secret of some length".utf8))
        let now = 1_800_000_000.0
        let url = signer.sign(path: "/v1/jobs/j1/segments/0/thumbnail", query: [("size", "320x180")], expires: Int(now) + 60)
        let (path, items) = Self.query(url)
        #expect(signer.verifies(path: path, query: items, now: now))
        #expect(!signer.verifies(path: path, query: items, now: now + 61), "expired")
        #expect(!signer.verifies(path: "/v1/jobs/j2/segments/0/thumbnail", query: items, now: now), "another job")
        let bigger = items.map { $0.0 == "size" ? ("size", "1920x1080") : $0 }
        #expect(!signer.verifies(path: path, query: bigger, now: now), "another parameter")
        let later = items.map { $0.0 == "expires" ? ("expires", String(Int(now) + 3600)) : $0 }
        #expect(!signer.verifies(path: path, query: later, now: now), "a longer life")
        #expect(!URLSigner(secret: Data("another server secret entirely".utf8)).verifies(path: path, query: items, now: now), "another key")
        let garbled = items.map { $0.0 == "signature" ? ("signature", "zz" + String($0.1.dropFirst(2))) : $0 }
        #expect(!signer.verifies(path: path, query: garbled, now: now))
        #expect(!signer.verifies(path: path, query: items.filter { $0.0 != "signature" }, now: now))
    }
}
