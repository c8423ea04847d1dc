import Foundation
import SessionKit
import Testing

/// docs/session-format.md, "Media references": one parser of `sha256:` + 64 lowercase hex digits.
struct ContentIDTests {
    static let hex = "0123456789abcdef" + String(repeating: "a", count: 48)

    @Test func onlyTheExactFormIsAContentID() throws {
        let id = try #require(ContentID("sha256:" + Self.hex))
        #expect(id.hex == Self.hex && id.description == "sha256:" + Self.hex)
        for bad in ["sha256:" + Self.hex.uppercased(), "sha256:" + Self.hex.dropLast(), "sha256:" + Self.hex + "0",
                    "SHA256:" + Self.hex, "md5:" + Self.hex, Self.hex, "sha256:" + Self.hex.dropLast() + "g",
                    "sha256:" + String(repeating: "é", count: 32), ""] {
            #expect(ContentID(bad) == nil, "\(bad)")
        }
    }

    @Test func itTravelsAsItsTextAndBadTextDoesNotDecode() throws {
        let id = try #require(ContentID(hex: Self.hex))
        let json = try JSONEncoder().encode(["a": id])
        #expect(String(decoding: json, as: UTF8.self) == #"{"a":"sha256:\#(Self.hex)"}"#)
        #expect(try JSONDecoder().decode([String: ContentID].self, from: json) == ["a": id])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([String: ContentID].self, from: Data(#"{"a":"sha256:12"}"#.utf8)) }
    }
}
