import Foundation
import RenderEngine
import SessionKit

/// A submission's `replace` and a batch's variants, applied on a submissions thread
/// (docs/session-format.md, "Templates"; docs/api.md, "Batches").
extension SubmissionCompiler {
    /// The submission with its replacements applied: the session re-encoded, `replace`
    /// cleared and the files no longer named dropped, so the job is stored as an ordinary
    /// one. `batchMedia` are the references of the other variants, dropped when this one
    /// does not name them. The answer says what is missing or wrong. `shown`: whether the
    /// client has sent a content id's bytes; one it has not is missing to it, and nothing of
    /// it is read (its length would leak through a problem).
    static func applyReplacements(_ submit: Submit, session: Session, batchMedia: Set<String> = [], context: Context,
                                  known: (String, FileStat) -> String?, shown: (String) -> Bool = { _ in true },
                                  verified: (String, String, FileStat) -> Void) -> Replaced {
        guard let replacements = submit.replace, !replacements.isEmpty else { return .applied(submit, session) }
        func refused(_ problems: [ValidationReport.Issue] = [], missing: [String] = []) -> Replaced {
            .refused(Submitted(jobID: nil, missing: missing, problems: problems))
        }
        func probe(_ reference: String) -> Result<MediaInfo, ReplacementGap> {
            if let contentID = submit.files[reference] {
                guard shown(contentID), let file = context.catalog.file(for: contentID, candidate: submit.paths[reference], known: known,
                                                      verified: { verified(contentID, $0, $1) }) else {
                    return .failure(.missing(contentID))
                }
                return Result { try MediaProbe.probe(path: file.path) }.mapError { .unreadable("\($0)") }
            }
            guard MediaURL.isURL(reference) else {
                return .failure(.unreadable("'\(reference)' has no content id in the submission's files"))
            }
            return MediaURL.parse(reference).mapError { OriginError(.refused, $0.description) }
                .flatMap { LoadedSession.pin($0, client: context.origins) }
                .mapError { ReplacementGap.unreadable($0.description) }
                .flatMap { object in Result { try MediaProbe.probe(object.input(client: context.origins.bounded())) }.mapError { .unreadable("\($0)") } }
        }
        var old: [String: SourceGeometry] = [:], new: [String: MediaInfo] = [:]
        var missing: [String] = [], problems: [ValidationReport.Issue] = []
        for (replaced, replacement) in replacements.sorted(by: { $0.key < $1.key }) {
            // The old media's geometry is the sidecar's record, else read when the coordinator
            // has the file, or can: a client that named its content id uploads it (it may carry
            // a crop); absent, it is not needed unless a crop or transform must be carried,
            // which `Template.apply` says.
            if let recorded = submit.geometry?[replaced] {
                old[replaced] = recorded
            } else {
                switch probe(replaced) {
                case .success(let info): old[replaced] = info.geometry
                case .failure(.missing(let contentID)): missing.append(contentID)
                case .failure(.unreadable): break
                }
            }
            switch probe(replacement) {
            case .success(let info): new[replacement] = info
            case .failure(.missing(let contentID)): missing.append(contentID)
            case .failure(.unreadable(let reason)):
                problems.append(ValidationReport.Issue(path: "replace", message: "\(MediaURL.redact(replaced))=\(MediaURL.redact(replacement)): \(reason)"))
            }
        }
        guard problems.isEmpty else { return refused(problems) }
        guard missing.isEmpty else { return refused(missing: Set(missing).sorted()) }
        let replaced: Session
        do {
            replaced = try Template.apply(session, replacements: replacements, old: old, new: new)
        } catch {
            return refused([ValidationReport.Issue(path: error.path == "--replace" ? "replace" : error.path, message: error.message)])
        }
        var out = submit
        out.replace = nil
        out.geometry = nil
        do {
            out.session = String(decoding: try SessionDocument.encode(replaced), as: UTF8.self)
        } catch {
            return refused([ValidationReport.Issue(path: "session", message: "\(error)")])
        }
        let named = Set(LoadedSession.mediaReferences(of: replaced) + LoadedSession.filterFiles(of: replaced))
        for reference in Set(replacements.keys).union(batchMedia) where !named.contains(reference) {
            out.files[reference] = nil
            out.paths[reference] = nil
        }
        return .applied(out, replaced)
    }

    enum Replaced {
        case applied(Submit, Session)
        /// The answer to the client: what is missing, or wrong.
        case refused(Submitted)
    }

    /// Why a replacement's media cannot be probed.
    enum ReplacementGap: Error {
        /// The coordinator lacks this content id: the client uploads it and submits again.
        case missing(String)
        case unreadable(String)
    }

    /// A batch compiled as a whole: every variant's job, or the answer naming each
    /// variant's problems (by index and name) or the union of what is missing.
    static func compileBatch(_ request: Request, variants: [BatchVariant], context: Context,
                             known: (String, FileStat) -> String?, holds: (String, String) -> Bool, probes: ProbeMemory) -> Outcome {
        let identity = request.identity
        var problems: [ValidationReport.Issue] = []
        func problem(_ path: String, _ message: String) { problems.append(ValidationReport.Issue(path: path, message: message)) }
        if variants.isEmpty { problem("variants", "a batch has at least one variant") }
        if variants.count > BatchVariant.limit {
            problem("variants", "\(variants.count) variants; a batch takes at most \(BatchVariant.limit)")
        }
        var seen: [String: Int] = [:]
        for (index, variant) in variants.enumerated() {
            if let wrong = BatchVariant.problem(ofName: variant.name) { problem("variants[\(index)].name", wrong) }
            if let first = seen.updateValue(index, forKey: variant.name) {
                problem("variants[\(index)].name", "'\(variant.name)' is also the name of variants[\(first)]")
            }
        }
        guard problems.isEmpty else { return .answer(identity, Submitted(jobID: nil, missing: [], problems: problems)) }
        // A batch is bounded as a whole, as one job is (docs/operations.md, "Limits"): every
        // segment is at least one shard, so a batch whose segments alone pass the limit is
        // refused before any variant is compiled, and compiling stops once its shards pass it.
        let shardLimit = context.limits.shards
        func tooLarge(_ count: Int, _ what: String) -> Outcome {
            .answer(identity, Submitted(jobID: nil, missing: [], problems: [ValidationReport.Issue(
                path: "variants", message: "\(variants.count) variants of \(what) \(count) shards at least; this farm takes at "
                    + "most \(shardLimit) in one batch (--max-shards)")]))
        }
        if let template = try? SessionDocument.decode(Data(request.submit.session.utf8)) {
            let segments = template.video?.videoSegments.count ?? 0
            if segments * variants.count > shardLimit { return tooLarge(segments * variants.count, "\(segments) segments each:") }
        }
        var shards = 0
        let batchMedia = Set(variants.flatMap { $0.replace.values })
        var jobs: [Compiled] = []
        var missing: Set<String> = []
        for (index, variant) in variants.enumerated() {
            var single = request
            single.submit.variants = nil
            single.submit.replace = (request.submit.replace ?? [:]).merging(variant.replace) { $1 }
            let label = "variants[\(index)]"
            switch compile(single, batchMedia: batchMedia, context: context, known: known, holds: holds, probes: probes) {
            case .compiled(var job):
                job.variant = variant.name
                shards += job.spec.tasks.count
                if shards > shardLimit { return tooLarge(shards, "which the first \(index + 1) make") }
                jobs.append(job)
            case .answer(_, let answer):
                missing.formUnion(answer.missing)
                problems += answer.problems.map { ValidationReport.Issue(path: Self.join(label, $0.path), message: "variant '\(variant.name)': \($0.message)") }
            case .failed(_, let error):
                return .failed(identity, FarmError(error.code, "\(label): variant '\(variant.name)': \(error.message)"))
            case .compiledBatch:
                return .failed(identity, FarmError(.internal, "\(label): a variant compiled as a batch"))
            }
        }
        guard problems.isEmpty else { return .answer(identity, Submitted(jobID: nil, missing: [], problems: problems)) }
        guard missing.isEmpty else { return .answer(identity, Submitted(jobID: nil, missing: missing.sorted(), problems: [])) }
        return .compiledBatch(identity, jobs)
    }

    /// A variant's path within the batch: `variants[2]` and `video.x` give `variants[2].video.x`.
    static func join(_ prefix: String, _ path: String) -> String {
        path.isEmpty ? prefix : path.hasPrefix("[") ? prefix + path : "\(prefix).\(path)"
    }
}
