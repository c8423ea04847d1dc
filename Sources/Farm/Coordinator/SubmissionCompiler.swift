import Foundation
import RenderEngine
import SessionKit
import Synchronization

/// Submissions compiled off the coordinator's loop (docs/architecture.md, "Threads"):
/// decoding the session, hashing the farm's looks and unverified files in place, probing
/// the media and compiling the job spec take from milliseconds to seconds, so they run on
/// a small pool of threads while the loop goes on serving: one submission of a client at a
/// time, clients in turn (`FairQueue`). What they produce comes back through an inbox, as
/// assemblies do, and the loop creates the job. Each thread has its own connection to the
/// job store, for reading remembered hashes.
final class SubmissionCompiler: Sendable {
    /// What compiling needs of the coordinator's options.
    struct Context: Sendable {
        var stateDirectory: URL
        var catalog: MediaCatalog
        var looks: URL?
        var strictLooks: Bool
        var acceptsCallbacks: Bool
        /// Where callbacks may go (`--allow-callback-host`).
        var callbackPolicy: URLPolicy
        /// How big a job may be (docs/operations.md, "Limits").
        var limits = JobLimits()
        /// Whether chunks are reused across owners (`--share-chunks`; docs/rendering.md, "Reusing chunks").
        var sharesChunks = false
        /// Reads sources named by URL: their index, to validate and plan.
        var origins: OriginClient
        /// The render slots the farm is sized for (`--planned-slots`): a job that does not
        /// say how long its shards are gets the length for this many (docs/scale.md); 0 = 2
        /// keyframe intervals.
        var plannedSlots = 0
        /// Probes URL media new to the farm on the workers (docs/architecture.md, "Probes
        /// by content id"); without it the compile thread probes them itself.
        var workerProbes: WorkerProbes?
    }

    /// The SHA-256 of what a submission asks, without how long its client waits: a retry
    /// of the same request has the same digest.
    static func digest(of submit: Submit) throws -> String {
        var asked = submit
        asked.answerWithin = nil
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Digest.sha256(try encoder.encode(asked))
    }

    /// The first answer to an idempotency key, for a retry of the same request; a refusal for another request under it.
    static func replay(_ first: JobStore.FirstAnswer, to identity: Data, key: String, digest: String) -> Outcome {
        guard first.requestSHA256 == digest else {
            return .failed(identity, FarmError(.invalidInput, "the Idempotency-Key '\(key.prefix(80))' was used for another request"))
        }
        return .answer(identity, first.reply)
    }

    /// A submission whose submitter has stopped waiting: neither compiled nor created.
    static let pastDeadline = FarmError(.noAnswer, "the submission was not answered within the time its client waits; "
        + "nothing was created: submit it again")

    struct Request: Sendable {
        var identity: Data
        var submit: Submit
        var owner: String?
        /// A client key that must have sent the bytes of every file it names (under CURVE;
        /// nil for an admin and on a farm without keys).
        var holder: String? = nil
        /// When the submitter stops waiting (Unix seconds): past it nothing is created.
        var deadline: Double? = nil
        /// The SHA-256 of the request, when it has an idempotency key (set on this thread).
        var digest: String? = nil

        /// Whose turn and share it takes: its owner's, else its connection's.
        var client: String { owner ?? identity.map { String(format: "%02x", $0) }.joined() }
    }

    /// A job ready to be created.
    struct Compiled: Sendable {
        var identity: Data
        var owner: String?
        /// The submission with the farm's looks in its files.
        var request: Submit
        /// When the submitter stops waiting (`Request.deadline`).
        var deadline: Double? = nil
        /// The request's SHA-256, when it has an idempotency key (`Request.digest`).
        var digest: String? = nil
        var spec: JobSpec
        /// The plan and its shards' tasks as the store writes them, encoded on this thread,
        /// not on the loop.
        var encodedSpec: String
        var encodedTasks: [String]
        var recipeKeys: [String]
        /// Files in place hashed now: the loop remembers them.
        var verified: [(contentID: String, path: String, stat: FileStat)]
        /// The stats of the files in place the farm verified (reference → stat), for
        /// workers that see the same files; taken on this thread, not on the loop.
        var pathStats: [String: FileStat] = [:]
        /// Media this submission probed (not known by content id), and the seconds it took.
        var probed = 0
        var probeSeconds = 0.0
        /// URL media new to the farm that the workers probed for it.
        var probedOnWorkers = 0
        /// The variant's name, in a batch.
        var variant: String? = nil
    }

    enum Outcome: Sendable {
        /// Not a job: the answer is problems or missing media.
        case answer(Data, Submitted)
        case compiled(Compiled)
        /// A batch's jobs, one per variant in order (docs/api.md, "Batches").
        case compiledBatch(Data, [Compiled])
        /// The compile failed (an unreadable file, a codec's refusal).
        case failed(Data, FarmError)
    }

    private let requests: FairQueue<Request>
    private let results: Inbox<Outcome>
    /// Submissions posted and not yet taken back (for the loop's `status` of its queue).
    private let pending = Atomic<Int>(0)
    private let threads: LaneThreads<FairQueue<Request>>

    /// Threads compiling at once, one client each at most (docs/operations.md, "Limits").
    static let defaultThreads = 2

    /// What a compile thread opens for itself.
    private struct ThreadState {
        var store: JobStore
        var holds: (String, String) -> Bool
        var known: (String, FileStat) -> String?
    }

    /// Opens each thread's store connection (a failure fails the coordinator's start).
    /// `wakes`: the loop's wakeup, signalled with each outcome.
    init(context: Context, store location: StoreLocation, holders: MediaHolders = MediaHolders(), threads: Int = defaultThreads,
         wakes loop: Wakeup? = nil) throws {
        let (requests, results) = (FairQueue<Request>(), Inbox<Outcome>(wakes: loop))
        (self.requests, self.results) = (requests, results)
        self.threads = try LaneThreads(name: "submissions", count: threads, queue: requests, open: { _ in
            let store = try JobStore(at: location)
            return ThreadState(store: store, holds: { owner, contentID in
                holders.contains(owner, contentID) || ((try? store.holds(owner, contentID)) ?? false)
            }, known: { path, stat in
                do { return try store.knownMedia(path: path, size: stat.size, mtime: stat.mtime) } catch { return nil }
            })
        }, handle: { state, turn in
            results.post(Self.handle(turn.item, context: context, state: state))
        })
    }

    /// One submission on a compile thread: a replay of its first answer, or its compile.
    private static func handle(_ taken: Request, context: Context, state: ThreadState) -> Outcome {
        var request = taken
        if let key = request.submit.idempotencyKey {
            let digest: String
            do {
                digest = try Self.digest(of: request.submit)
            } catch {
                return .failed(request.identity, FarmError(.invalidInput, "the submission cannot be encoded: \(error)"))
            }
            request.digest = digest
            if let first = try? state.store.firstAnswer(owner: request.owner, key: key) {
                return Self.replay(first, to: request.identity, key: key, digest: digest)
            }
        }
        // Its reads of origins take its client's share of the connections.
        var own = context
        own.origins = context.origins.onBehalf(of: request.client)
        let outcome = Self.compile(request, context: own, known: state.known, holds: state.holds, probes: ProbeMemory(store: state.store))
        // A large session's decoding is transient: its memory goes back, kept or refused.
        if request.submit.session.utf8.count > 1 << 20 { HeapPolicy.releaseFreed() }
        return outcome
    }

    /// Queues a submission behind its client's earlier ones: its owner's, else its connection's.
    func post(_ request: Request) {
        pending.add(1, ordering: .relaxed)
        requests.post(request, client: request.client)
    }

    /// Compiled submissions, in the order they finished.
    func take() -> [Outcome] {
        let taken = results.take()
        pending.subtract(taken.count, ordering: .relaxed)
        return taken
    }

    /// Submissions waiting or compiling.
    var backlog: Int { pending.load(ordering: .relaxed) }

    func shutDown() { threads.stop() }

    // MARK: Compiling (no state of the loop is read here)

    /// `batchMedia`: in a batch, every variant's new media (docs/api.md, "Batches").
    /// `probes`: kept by content id; what this submission probes is added (docs/architecture.md,
    /// "Probes by content id").
    static func compile(_ request: Request, batchMedia: Set<String> = [], context: Context, known: (String, FileStat) -> String?,
                        holds: (String, String) -> Bool = { _, _ in true }, probes: ProbeMemory = ProbeMemory()) -> Outcome {
        if let variants = request.submit.variants {
            return compileBatch(request, variants: variants, context: context, known: known, holds: holds, probes: probes)
        }
        let identity = request.identity
        if let deadline = request.deadline, Date().timeIntervalSince1970 > deadline {
            return .failed(identity, SubmissionCompiler.pastDeadline)
        }
        let probedBefore = (count: probes.probed, seconds: probes.seconds, onWorkers: probes.probedOnWorkers)
        func answer(problems: [ValidationReport.Issue] = [], missing: [String] = []) -> Outcome {
            .answer(identity, Submitted(jobID: nil, missing: missing, problems: problems))
        }
        do {
            var session: Session
            var submit: Submit
            var verified: [(contentID: String, path: String, stat: FileStat)] = []
            do throws(SessionDocumentError) {
                session = try SessionDocument.decode(Data(request.submit.session.utf8))
            } catch {
                return answer(problems: [ValidationReport.Issue(path: error.path, message: error.message)])
            }
            let holder = request.holder
            switch applyReplacements(request.submit, session: session, batchMedia: batchMedia, context: context, known: known,
                                     shown: { contentID in holder.map { holds($0, contentID) } ?? true },
                                     verified: { verified.append(($0, $1, $2)) }) {
            case .refused(let answer): return .answer(identity, answer)
            case .applied(let replaced, let replacedSession): (submit, session) = (replaced, replacedSession)
            }
            do {
                submit = try withFarmLooks(submit, session: session, context: context)
            } catch {
                return answer(problems: [ValidationReport.Issue(path: "looks", message: "\(error)")])
            }
            let segments = session.video?.videoSegments.count ?? 0
            guard segments <= context.limits.segments else {
                return answer(problems: [ValidationReport.Issue(path: "video.videoSegments", message: "\(segments) segments; this farm takes at "
                    + "most \(context.limits.segments) in one session (--max-segments)")])
            }
            let problems = self.problems(of: submit, session: session, context: context)
            guard problems.isEmpty else { return answer(problems: problems) }
            let (loaded, missing) = load(session: session, files: submit.files, paths: submit.paths, context: context, known: known,
                                         probes: probes) {
                verified.append(($0, $1, $2))
            }
            // Files the client has not sent are missing to it, whoever else sent them.
            // Every file the client named counts, also one a replacement no longer names (its
            // size was read for the crop).
            let named = Set(submit.files.values).union(request.submit.files.values)
            let unshown = request.holder.map { holder in named.filter { !holds(holder, $0) } } ?? []
            guard missing.isEmpty, unshown.isEmpty else { return answer(missing: Set(missing + unshown).sorted()) }
            guard loaded.report.isValid else { return answer(problems: loaded.report.problems) }
            guard session.video != nil else { return answer(problems: [ValidationReport.Issue(path: "image", message: "image sessions render locally: reel render IMAGE.json -o OUT.jpg")]) }
            let contentIDs = submit.files.merging(loaded.origins.mapValues(\.contentID)) { $1 }
            if submit.settings.shardKeyframeIntervals == nil, context.plannedSlots > 0 {
                // Chosen once and stored with the job, so a restart plans it the same.
                submit.settings.shardKeyframeIntervals = Plan.shardKeyframeIntervals(
                    timeline: try loaded.timeline(), keyframeIntervalSeconds: submit.settings.keyframeInterval,
                    slots: context.plannedSlots)
            }
            var spec = try JobSpec.compile(loaded, settings: submit.settings, contentIDs: contentIDs, layout: submit.layout ?? .whole)
            guard spec.tasks.count <= context.limits.shards else {
                return answer(problems: [ValidationReport.Issue(path: "video", message: "the job would be \(spec.tasks.count) shards; this farm "
                    + "takes at most \(context.limits.shards) in one job (--max-shards)")])
            }
            if let text = submit.outputURL, let url = try? MediaURL.parse(text).get() {   // checked by `problems`
                spec.destination = OutputTarget(url: url, sidecarURL: submit.sidecarURL.flatMap { try? MediaURL.parse($0).get() })
            }
            spec.pool = submit.pool   // checked by `problems`
            let keys = try Coordinator.reuseKeys(spec, owner: request.owner, shared: context.sharesChunks)
            return .compiled(Compiled(identity: identity, owner: request.owner, request: submit, deadline: request.deadline,
                                      digest: request.digest, spec: spec, encodedSpec: String(decoding: try spec.encoded(), as: UTF8.self),
                                      encodedTasks: try spec.tasks.map(JobStore.json), recipeKeys: keys,
                                      verified: verified,
                                      pathStats: Self.verifiedStats(files: submit.files, paths: submit.paths, catalog: context.catalog,
                                                                    known: { path, stat in
                                                                        verified.first { $0.path == path && $0.stat == stat }?.contentID
                                                                            ?? known(path, stat)
                                                                    }),
                                      probed: probes.probed - probedBefore.count,
                                      probeSeconds: probes.seconds - probedBefore.seconds,
                                      probedOnWorkers: probes.probedOnWorkers - probedBefore.onWorkers))
        } catch {
            return .failed(identity, FarmError.from(error, fallback: .invalidInput))
        }
    }

    /// What is wrong with a submission before any file is read.
    /// Stats of the paths the farm verified (reference → stat): a file in place whose
    /// remembered hash is its content id at this size and time.
    static func verifiedStats(files: [String: String], paths: [String: String], catalog: MediaCatalog,
                              known: (String, FileStat) -> String?) -> [String: FileStat] {
        paths.reduce(into: [:]) { stats, entry in
            if let contentID = files[entry.key], let stat = catalog.verifiedStat(of: entry.value, contentID: contentID, known: known) {
                stats[entry.key] = stat
            }
        }
    }

    static func problems(of request: Submit, session: Session, context: Context) -> [ValidationReport.Issue] {
        let references = Set(LoadedSession.mediaReferences(of: session) + LoadedSession.filterFiles(of: session))
        var problems: [ValidationReport.Issue] = []
        func problem(_ path: String, _ message: String) { problems.append(ValidationReport.Issue(path: path, message: message)) }
        // The same rules as the command line's: a peer's settings are input like any other.
        do { try request.settings.validate() } catch { problem("settings", "\(error)") }
        if let pool = request.pool {
            if let wrong = PoolName.problem(pool) { problem("settings.pool", wrong) }
        }
        if let callback = request.callback {
            if !context.acceptsCallbacks {
                problem("callback", "this coordinator delivers no webhooks (it was started without --webhook-secret)")
            } else {
                // By name here (no lookup on the loop); the deliverer resolves and checks
                // again at each attempt (docs/api.md, "Webhooks").
                switch MediaURL.parse(callback).mapError({ OriginError(.refused, $0.description) })
                    .flatMap({ context.callbackPolicy.checkByName($0) }) {
                case .success: break
                case .failure(let refused): problem("callback", refused.message)
                }
            }
        }
        for (path, text) in [("output.url", request.outputURL), ("output.sidecarUrl", request.sidecarURL)] {
            guard let text else { continue }
            switch MediaURL.parse(text).mapError({ OriginError(.refused, $0.description) })
                .flatMap({ url in context.origins.policy.addresses(for: url).map { _ in url } }) {
            case .success: break
            case .failure(let error): problem(path, "\(error)")
            }
        }
        if request.sidecarURL != nil, request.outputURL == nil { problem("output.sidecarUrl", "needs output.url") }
        if request.outputURL != nil, request.layout == .segments {
            problem("output.url", "a job of one file per segment is fetched, not sent to one URL")
        }
        for reference in references.sorted() where request.files[reference] == nil && !MediaURL.isURL(reference) {
            problem("files", "'\(reference)' has no content id in the submission")
        }
        for (reference, contentID) in request.files.sorted(by: { $0.key < $1.key }) where ContentID(contentID) == nil {
            problem("files.\(reference)", "'\(contentID)' is not a content id")
        }
        return problems
    }

    /// With `--looks`, the farm's looks replace the submission's: every job on this farm
    /// renders a look name with the farm's image (docs/filters.md, "Named looks").
    static func withFarmLooks(_ request: Submit, session: Session, context: Context) throws -> Submit {
        guard let looks = context.looks else { return request }
        var request = request
        let locator = MediaLocator(sessionFile: context.stateDirectory.appendingPathComponent("session.json"), looksDirectory: looks)
        for (reference, file) in LoadedSession.lookFiles(of: session, in: locator) {
            request.files[reference] = try ContentID.of(file: file.path)
            request.paths[reference] = file.path
        }
        return request
    }

    /// The session with its references resolved to files the coordinator can read, and
    /// the content ids it cannot find (sorted).
    static func load(session: Session, files: [String: String], paths: [String: String], context: Context,
                     known: (String, FileStat) -> String?, probes: ProbeMemory = ProbeMemory(),
                     verified: (String, String, FileStat) -> Void) -> (LoadedSession, missing: [String]) {
        var resolved: [String: URL] = [:]
        var unavailable: [String: String] = [:]
        for (reference, contentID) in files {
            if let url = context.catalog.file(for: contentID, candidate: paths[reference], known: known,
                                              verified: { verified(contentID, $0, $1) }) {
                resolved[reference] = url
            } else {
                unavailable[reference] = "\(contentID) is not on the coordinator"
            }
        }
        // Sources by URL: pinned and probed here, read by the workers from their origins.
        var origins: [String: OriginObject] = [:]
        for reference in Set(LoadedSession.mediaReferences(of: session)) where files[reference] == nil && MediaURL.isURL(reference) {
            switch MediaURL.parse(reference).mapError({ OriginError(.refused, $0.description) }).flatMap({ LoadedSession.pin($0, client: context.origins) }) {
            case .success(let object): origins[reference] = object
            case .failure(let error): unavailable[reference] = error.description
            }
        }
        for reference in Set(LoadedSession.filterFiles(of: session)) where MediaURL.isURL(reference) && files[reference] == nil {
            unavailable[reference] = "a filter file by URL is read by the submitting client: upload it (PUT /v1/media/{contentID}) "
                + "and name its content id in files (docs/session-format.md, \"Sources by URL\")"
        }
        // URL media new to the farm: probed by the workers, all at once; what they do not
        // answer is probed below, here.
        if let onWorkers = context.workerProbes {
            var unknown: [String: (reference: String, object: OriginObject)] = [:]
            for (reference, object) in origins where !probes.knows(object.contentID) { unknown[object.contentID] = (reference, object) }
            probes.adopt(onWorkers.probe(unknown))
        }
        let url = context.stateDirectory.appendingPathComponent("session.json")
        let missing = Set(unavailable.keys.compactMap { files[$0] }).sorted()   // URL media have no content id here
        // A medium is known by its content id (a URL's object by its pinned ETag's).
        let contentIDs = files.filter { resolved[$0.key] != nil }.merging(origins.mapValues(\.contentID)) { $1 }
        let loaded = probes.load(contentIDs: contentIDs) { remembered in
            LoadedSession.make(url: url, session: session, files: resolved, unavailable: unavailable, origins: origins,
                               originClient: context.origins, remembered: remembered, strictLooks: context.strictLooks)
        }
        return (loaded, missing)
    }
}
