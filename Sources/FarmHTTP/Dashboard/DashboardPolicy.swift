import Crypto
import Foundation

extension DashboardPage {
    /// The page's Content-Security-Policy: its one script and one style sheet allowed by
    /// their SHA-256 (computed here from the page itself), nothing inline besides, nothing
    /// from elsewhere but the API it calls and the pictures and videos it shows (a preview is a
/// `blob:` of Media Source Extensions).
    static let contentSecurityPolicy: String = {
        let script = hash(between: "<script>", and: "</script>")
        let style = hash(between: "<style>", and: "</style>")
        return "default-src 'none'; script-src '\(script)'; style-src '\(style)'; connect-src 'self'; img-src 'self' blob:; media-src 'self' blob:; "
            + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }()

    /// `sha256-<base64>` of the text between the first `open` and the next `close`.
    static func hash(between open: String, and close: String) -> String {
        guard let start = html.range(of: open)?.upperBound, let end = html.range(of: close, range: start..<html.endIndex)?.lowerBound else {
            preconditionFailure("the dashboard page has no \(open) element")   // the page is a constant of this file's module
        }
        return "sha256-" + Data(SHA256.hash(data: Data(html[start..<end].utf8))).base64EncodedString()
    }
}
