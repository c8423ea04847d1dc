import ArgumentParser
import Farm
import Foundation
import RenderEngine
import SessionKit

/// What `thumbnail`, `thumbnails` and `frame` share: the session, the segment, and where
/// the pictures come from — the farm with `--coordinator` (or `REEL_COORDINATOR`),
/// otherwise this machine with a persistent cache.
struct StillOptions: ParsableArguments {
    @OptionGroup var session: SessionOptions
    @OptionGroup var farm: CoordinatorOption

    @Option(name: .customLong("cache-dir"), help: "Local picture cache (default: ~/.cache/reelfarm/stills).")
    var cacheDir: String?

    @Option(name: .customLong("thumbnail-cache-size"), help: "Local picture cache limit in MiB.")
    var cacheSize: Int = 512

    @Flag(help: "Print what was made as JSON on stdout.")
    var json = false

    @Option(help: .hidden) var testRenderLog: String?

    /// Whether a coordinator was named; without one, pictures are made here.
    var usesFarm: Bool { farm.isGiven }

    /// The one-segment session of `segment` with `filters`, loaded and validated; problems
    /// are reported against the user's names (exit 2).
    func loadStill(segment: Int, filters: [SessionFilter]) throws -> LoadedSession {
        let loaded: LoadedSession
        do {
            // Probes of clips pictured before come from the local cache (not with a farm: it probes them itself).
            let memo = usesFarm ? nil : try? localCache()
            loaded = try LoadedSession.load(path: session.session, mediaRoots: session.mediaRoots, looks: session.looks.directory,
                                            strictLooks: session.looks.strict, urls: session.urls.client,
                                            knownProbe: { file in
                                                guard let memo, let id = try? memo.contentID(of: file) else { return nil }
                                                return try? memo.probe(contentID: id)
                                            }) { document in
                let count = document.video?.videoSegments.count ?? 0
                guard let still = document.stillSession(segment: segment, filters: filters) else {
                    throw StillRequestError(document.video == nil
                        ? "\(session.session) is an image session: thumbnails and frames are of video segments"
                        : "--segment \(segment): the session has \(count) segment(s), 0 … \(max(0, count - 1))")
                }
                return still
            }
        } catch let error as SessionDocumentError {
            printError("error: \(session.session): \(error)")
            throw Reported(code: ExitStatus.invalidInput)
        } catch let error as StillRequestError {
            printError("error: \(error)")
            throw Reported(code: ExitStatus.invalidInput)
        }
        guard loaded.report.isValid else {
            for problem in loaded.report.problems {
                // The still session holds the one segment at index 0 and the --filter as its filter.
                let line = "\(problem)"
                    .replacingOccurrences(of: "video.videoSegments[0].filters[0]", with: "--filter")
                    .replacingOccurrences(of: "video.videoSegments[0]", with: "video.videoSegments[\(segment)]")
                printError("error: \(line)")
            }
            throw Reported(code: ExitStatus.invalidInput)
        }
        return loaded
    }

    /// Makes the pictures, here or on the farm; returns them with who made them.
    func make(_ loaded: LoadedSession, _ requests: [StillRequest]) throws -> (pictures: [(StillResult, Data)], worker: String) {
        if usesFarm {
            let client = try farm.client()
            let cache = try? localCache()
            let reply = try farmCall {
                try client.stills(loaded, requests) { url in try cache?.contentID(of: url) ?? ContentID.of(file: url.path) }
            }
            if let problems = reply.invalid {
                for problem in problems { printError("error: \(problem)") }
                throw Reported(code: ExitStatus.invalidInput)
            }
            return (reply.pictures, reply.worker)
        }
        do {
            let service = StillService(cache: try localCache(), renderLog: testRenderLog)
            let contentIDs = try loaded.files.mapValues { try service.cache.contentID(of: $0) }
                .merging(loaded.origins.mapValues(\.contentID)) { $1 }
            let served = try service.serve(loaded, contentIDs: contentIDs, requests: requests)
            return (try served.map { ($0.0, try Data(contentsOf: $0.1)) }, "local")
        } catch let error as StillRequestError {
            printError("error: \(error)")
            throw Reported(code: ExitStatus.invalidInput)
        } catch let reported as Reported {
            throw reported
        } catch {
            printError("error: \(error)")
            throw Reported(code: ExitStatus.failure)
        }
    }

    func localCache() throws -> StillCache {
        try StillCache(directory: cacheDir.map { URL(fileURLWithPath: $0) } ?? StillCache.defaultDirectory,
                       limit: Int64(max(1, cacheSize)) << 20)
    }

    /// Writes a picture through a temporary name, so a failure leaves nothing at `path`.
    func write(_ data: Data, to path: String) throws {
        do {
            try TemporaryOutput.write(to: path) { try data.write(to: URL(fileURLWithPath: $0)) }
        } catch {
            printError("error: cannot write \(path): \(error)")
            throw Reported(code: ExitStatus.failure)
        }
    }

    /// Makes one picture, writes it to `output`, and prints its `--json` line.
    func makeOne(_ loaded: LoadedSession, _ request: StillRequest, to output: String) throws {
        let started = Date()
        let (pictures, worker) = try make(loaded, [request])
        guard let (result, data) = pictures.first else { throw Reported(code: ExitStatus.failure) }
        try write(data, to: output)
        if json {
            try printJSON(StillOutput(path: nil, width: result.width, height: result.height, cached: result.cached, worker: worker,
                                      millis: Int(Date().timeIntervalSince(started) * 1000), time: result.time))
        }
    }
}

/// `WxH` as a size.
func parseSize(_ text: String, option: String) throws -> Size {
    let parts = text.lowercased().split(separator: "x")
    guard parts.count == 2, let w = Double(parts[0]), let h = Double(parts[1]), w.isFinite, h.isFinite else {
        throw ValidationError("\(option) '\(text)': use WxH, e.g. 320x180")
    }
    return Size(width: w, height: h)
}

/// `--filter`: a type name (a built-in at the strong end of its range, a look, a custom filter) or a filter's JSON.
func parseFilter(_ text: String?) throws -> [SessionFilter] {
    guard let text else { return [] }
    if text.trimmingCharacters(in: .whitespaces).hasPrefix("{") {
        do {
            return [try JSONDecoder().decode(SessionFilter.self, from: Data(text.utf8))]
        } catch {
            throw ValidationError("--filter is not a filter's JSON: \(error)")
        }
    }
    // A custom filter of the looks directory is checked when the still session is validated.
    guard let definition = FilterRegistry.builtIn[text] else { return [SessionFilter(type: text)] }
    if case .fileField(let key, _) = definition.input {
        throw ValidationError("--filter \(text) needs its \(key): give its JSON, e.g. '{\"type\":\"lookup\",\"image\":\"looks/x.png\"}'")
    }
    return [SessionFilter(type: definition.type, normalizedIntensity: definition.slider.map { $0.normalizedRange.upperBound })]
}

/// One line of `--json` output. `millis`: from request to picture written (thumbnail,
/// frame), or the serving time of each picture (filmstrip).
struct StillOutput: Encodable {
    var path: String?
    var width: Int
    var height: Int
    var cached: Bool
    var worker: String
    var millis: Int
    /// Seconds on the media's clock of the frame shown (with a tolerance: the keyframe chosen).
    var time: Double?
}

/// `--tolerance SECONDS` as an exact time; nil without one.
func toleranceTime(_ seconds: Double?) throws -> SessionTime? {
    guard let seconds else { return nil }
    guard seconds.isFinite, seconds >= 0, seconds <= StillRequest.maximumTolerance, let time = SessionTime(seconds: seconds) else {
        printError("error: --tolerance \(seconds): use 0 … \(Int(StillRequest.maximumTolerance)) seconds")
        throw Reported(code: ExitStatus.invalidInput)
    }
    return time
}

/// Seconds as an exact time (the simplest fraction, as for session documents).
func sessionTime(_ seconds: Double) throws -> SessionTime {
    guard seconds.isFinite, let time = SessionTime(seconds: seconds) else {
        printError("error: --time \(seconds) is not a time in seconds")
        throw Reported(code: ExitStatus.invalidInput)
    }
    return time
}

extension ContentMode: ExpressibleByArgument {}
