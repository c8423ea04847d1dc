import Foundation
import ReelTestSupport

/// A scratch copy of the examples with their media made by `reel sample`.
enum Examples {
    static func prepare() throws -> URL {
        let dir = try TestEnvironment.scratchDirectory("examples")
        let source = TestEnvironment.packageRoot.appendingPathComponent("examples")
        for item in try FileManager.default.contentsOfDirectory(atPath: source.path) where item != "media" {
            try FileManager.default.copyItem(at: source.appendingPathComponent(item), to: dir.appendingPathComponent(item))
        }
        var env = ProcessInfo.processInfo.environment
        env["REEL"] = TestEnvironment.reel
        let made = try ProcessRunner.run("/bin/bash", [dir.appendingPathComponent("make-media.sh").path, dir.path], environment: env)
        guard made.status == 0 else { throw Failure("make-media.sh failed: \(made.stderr)") }
        return dir
    }

    static let sessions = ["simple.json", "multi-segment.json", "sdk-session.json", "image.json", "phone-mix.json"]
}

struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// A one-segment session around a fresh `reel sample` clip (2 s, 320×240, 30 fps).
enum Scratch {
    static func withClip(_ name: String = #function, extraArguments: [String] = []) throws -> URL {
        let dir = try TestEnvironment.scratchDirectory(name)
        let made = try TestEnvironment.reel(["sample", dir.appendingPathComponent("clip.mp4").path,
                                             "--duration", "2", "--size", "320x240"] + extraArguments)
        guard made.status == 0 else { throw Failure("reel sample failed: \(made.stderr)") }
        return dir
    }
}
