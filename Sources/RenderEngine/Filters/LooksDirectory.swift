import Foundation
import SessionKit

/// A looks directory (docs/filters.md, "Named looks"): `NAME.png` lookup images for the
/// SDK's looks and for looks of its own, `NAME.cube` LUTs, and `NAME.json` custom filters.
public struct LooksDirectory: Sendable {
    public let url: URL

    public init(_ url: URL) { self.url = url.standardizedFileURL }

    /// The looks shipped with ReelFarm: `$REEL_LOOKS`, else `share/reelfarm/looks` beside
    /// the installed binary, else the repository's `looks/` above a `.build` binary.
    public static var shipped: URL? {
        if let env = ProcessInfo.processInfo.environment["REEL_LOOKS"], !env.isEmpty { return URL(fileURLWithPath: env) }
        let executable = URL(fileURLWithPath: RunningExecutable.path).resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        let installed = directory.deletingLastPathComponent().appendingPathComponent("share/reelfarm/looks")
        if FileManager.default.fileExists(atPath: installed.path) { return installed }
        for _ in 0..<5 {
            directory = directory.deletingLastPathComponent()
            let candidate = directory.appendingPathComponent("looks")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("wilshire.png").path) { return candidate }
        }
        return nil
    }

    /// One installed look or custom filter.
    public struct Entry: Sendable, Codable, Equatable {
        public enum Kind: String, Sendable, Codable { case lookupImage, cube, customFilter }
        public let name: String
        public let kind: Kind
        public let file: String
        /// One of the SDK's nine look names.
        public let sdkLook: Bool
        /// ReelFarm's stand-in, not the SDK's own image.
        public let standIn: Bool
        /// Why the file cannot be used, if it cannot.
        public let problem: String?
    }

    /// Every look file, checked, sorted by name.
    public func entries() throws -> [Entry] {
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
        let sdk = Set(NamedLooks.ranges.map(\.0))
        return names.compactMap { file in
            let fileURL = url.appendingPathComponent(file)
            let name = (file as NSString).deletingPathExtension
            switch (file as NSString).pathExtension.lowercased() {
            case "png":
                do {
                    let loaded = try LookupImageFile.load(fileURL)
                    return Entry(name: name, kind: .lookupImage, file: file, sdkLook: sdk.contains(name),
                                 standIn: loaded.standInFor != nil, problem: nil)
                } catch {
                    return Entry(name: name, kind: .lookupImage, file: file, sdkLook: sdk.contains(name), standIn: false,
                                 problem: "\(error)")
                }
            case "cube":
                let problem = Result { try CubeLUT(contentsOf: fileURL) }.failureDescription
                return Entry(name: name, kind: .cube, file: file, sdkLook: false, standIn: false, problem: problem)
            case "json":
                let problem = Result { try CustomFilterFile.parse(try Data(contentsOf: fileURL), name: file) }.failureDescription
                return Entry(name: name, kind: .customFilter, file: file, sdkLook: false, standIn: false, problem: problem)
            default:
                return nil
            }
        }
    }
}

extension Result where Failure == any Error {
    var failureDescription: String? {
        if case .failure(let error) = self { return "\(error)" }
        return nil
    }
}
