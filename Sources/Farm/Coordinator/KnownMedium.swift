import Foundation
import RenderEngine
import SessionKit

/// A file in place that the process starting a coordinator has already hashed and probed
/// (`Coordinator.Options.knownMedia`; docs/architecture.md, "Probes by content id").
public struct KnownMedium: Sendable {
    public var contentID: String
    public var path: String
    /// The file's stat before it was hashed: a file changed since no longer matches.
    public var stat: FileStat
    /// Nil for a file that is not media (a LUT, a look's image).
    public var probe: MediaInfo?

    public init(contentID: String, path: String, stat: FileStat, probe: MediaInfo?) {
        self.contentID = contentID
        self.path = path
        self.stat = stat
        self.probe = probe
    }

    /// Each file of a loaded session, hashed here, with the probe the load made. The stat
    /// is read before the hash, so a file written meanwhile is hashed again by the farm.
    public static func of(_ loaded: LoadedSession) throws -> [String: KnownMedium] {
        var known: [String: KnownMedium] = [:]
        for (reference, url) in loaded.files {
            guard let stat = FileStat.of(url.path) else { continue }
            var probe: MediaInfo?
            if case .available(let info) = loaded.media[reference] { probe = info }
            known[reference] = KnownMedium(contentID: try ContentID.of(file: url.path), path: url.path, stat: stat, probe: probe)
        }
        return known
    }
}

extension JobStore {
    func remember(_ medium: KnownMedium) throws {
        try rememberMedia(contentID: medium.contentID, path: medium.path, size: medium.stat.size, mtime: medium.stat.mtime)
        if let probe = medium.probe { try rememberProbe(probe, of: medium.contentID) }
    }
}
