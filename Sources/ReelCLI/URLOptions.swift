import ArgumentParser
import RenderEngine

/// Which origins media by URL may be read from, and how long one may stay silent
/// (docs/operations.md, "Sources by URL").
struct URLOptions: ParsableArguments {
    @Option(name: .customLong("allow-url-host"), help: ArgumentHelp(
        "Read URLs only from this host (repeatable; *.example.com for its subdomains; host:port for that port only). A listed "
            + "host may have a private or loopback address. Default: any host whose addresses are all public.", valueName: "host"))
    var allowedHosts: [String] = []

    @Option(name: .customLong("url-timeout"), help: ArgumentHelp(
        "Seconds one read from an origin may take in all: its tries (4 at most), the pauses between them and its redirects. "
            + "A probe's reads together take no longer.", valueName: "seconds"))
    var stallTimeout: Double = 30

    func validate() throws {
        guard stallTimeout.isFinite, stallTimeout >= 1, stallTimeout <= 3600 else {
            throw ValidationError("--url-timeout \(stallTimeout) is not a number of seconds in 1…3600")
        }
    }

    var client: OriginClient {
        var limits = OriginClient.Limits()
        limits.stallTimeout = stallTimeout
        limits.readTimeout = stallTimeout
        limits.connectTimeout = min(limits.connectTimeout, stallTimeout)
        return OriginClient(policy: URLPolicy(allowedHosts: allowedHosts), limits: limits)
    }
}
