import Foundation
import RenderEngine

/// Assemblies that follow the render (docs/rendering.md, "Assembly"): a job's MP4 is
/// written on this thread as its chunks are stored, in output order, so when the last one
/// is stored only the index is left to write. The loop posts what happened; the thread
/// owns every assembly in progress and answers each `finish` through `finished`. A chunk
/// is there when its file is (the loop writes chunks under a temporary name and renames
/// them).
final class AssemblyLane: Sendable {
    enum Request: Sendable {
        /// A job of one file: its spec, where the result and its live preview go, and its
        /// chunks' paths by task.
        case begin(job: String, spec: JobSpec, output: String, preview: String, chunks: [String])
        /// Chunks of the job were stored.
        case advance(job: String)
        /// Every chunk is stored: write the index and the sidecar.
        case finish(job: String)
        /// The job ended: a job that ended otherwise loses what was written, its preview too.
        /// `then` runs once the lane has let go of the job's chunks (its preview ended),
        /// so whatever removes them cannot pull them from under the preview.
        case drop(job: String, then: @Sendable () -> Void)
    }

    /// A finished (or failed) assembly: the job, the error, and the seconds spent writing
    /// the file in all.
    struct Finished: Sendable {
        var job: String
        /// Why the file could not be made: a disk's refusal (`ioFailed`, `storageFull`) or
        /// chunks that do not join (`renderFailed`).
        var error: FarmError?
        var writing = 0.0
    }

    private let requests: SharedQueue<Request>
    private let thread: LaneThreads<SharedQueue<Request>>
    let finished: Inbox<Finished>

    /// `wakes`: the loop's wakeup, signalled with each answer. `log`: why a job's live
    /// preview was given up (the job goes on without one).
    init(wakes loop: Wakeup, log: @escaping @Sendable (String) -> Void) {
        let (requests, finished) = (SharedQueue<Request>(), Inbox<Finished>(wakes: loop))
        (self.requests, self.finished) = (requests, finished)
        // Its state is opened without a call that can fail.
        thread = try! LaneThreads(name: "assembly", queue: requests, open: { _ in State(log: log) }, handle: { lane, request in
            if let answer = lane.handle(request) { finished.post(answer) }
            lane.endPreviews()   // after the answer: a preview never delays a job's end
            if case .drop(_, let then) = request { then() }
        }, close: { lane in
            for job in lane.running.values { job.assembly.abandon() }
        })
    }

    func post(_ request: Request) { requests.post(request) }

    func shutDown() { thread.stop() }

    /// One job's assembly on the lane, and the first error it met (reported at `finish`).
    private final class InProgress {
        let job: String
        let spec: JobSpec
        let file: JobSpec.OutputFile
        let output: String
        let assembly: Assembly
        /// The live preview (docs/rendering.md, "Live preview"): nil once it failed, which
        /// never fails the job.
        var preview: LivePreview?
        let previewDirectory: String
        let log: @Sendable (String) -> Void
        var error: String?
        var complete = false
        /// Seconds spent writing.
        var busy = 0.0

        init(job: String, spec: JobSpec, file: JobSpec.OutputFile, output: String, assembly: Assembly, preview: LivePreview?,
             previewDirectory: String, log: @escaping @Sendable (String) -> Void) {
            self.job = job
            self.spec = spec
            self.file = file
            self.output = output
            self.assembly = assembly
            self.preview = preview
            self.previewDirectory = previewDirectory
            self.log = log
        }

        func advance() {
            guard error == nil, !complete else { return }
            let started = Date()
            let isReady = { (path: String) in Disk.exists(path) }
            do {
                // The preview rides along: fed each packet as the assembly reads it.
                complete = try assembly.advance(isReady: isReady)
            } catch {
                self.error = "\(error)"
                assembly.abandon()
            }
            if preview != nil, let failure = assembly.previewFailure { givePreviewUp(failure) }
            busy += Date().timeIntervalSince(started)
        }

        /// Publishes the last segments and ends the preview (`#EXT-X-ENDLIST`): after the
        /// job's answer, so a preview never delays a job's end.
        func endPreview() {
            do { try preview?.finish() } catch { givePreviewUp(error) }
        }

        private func givePreviewUp(_ error: any Error) {
            log("job \(job): the live preview is given up: \(error)")
            dropPreview()
        }

        func dropPreview() {
            preview = nil
            assembly.preview = nil
            try? FileManager.default.removeItem(atPath: previewDirectory)   // a preview is a convenience; the job goes on
        }

        /// Writes the index and the sidecar: the result in place.
        func finish(job: String) throws {
            advance()
            if let error { throw EngineError(error) }
            guard complete else { throw EngineError("a chunk of job \(job) is missing") }
            let started = Date()
            try assembly.finish()
            try spec.writeSidecar(of: file, beside: output)
            busy += Date().timeIntervalSince(started)
        }
    }

    /// What the lane's thread owns: the assemblies in progress, and the jobs whose assembly
    /// could not begin (said at their `finish`).
    private struct State {
        let log: @Sendable (String) -> Void
        var running: [String: InProgress] = [:]
        var unbegun: [String: FarmError] = [:]
        /// Jobs whose file is finished and whose preview is not ended yet.
        var previewsToEnd: [InProgress] = []

        mutating func endPreviews() {
            for progress in previewsToEnd { progress.endPreview() }
            previewsToEnd = []
        }

        mutating func handle(_ request: Request) -> Finished? {
            switch request {
            case .begin(let job, let spec, let output, let previewDirectory, let chunks):
                guard running[job] == nil, let file = spec.outputFiles.first else { return nil }
                do {
                    let assembly = try spec.beginAssembly(of: file, to: output) { chunks[$0] }
                    // A preview that cannot begin (a full disk) leaves the job without one.
                    var preview: LivePreview?
                    do {
                        preview = try spec.beginPreview(of: file, in: previewDirectory, riding: assembly)
                    } catch {
                        log("job \(job): no live preview: \(error)")
                    }
                    let progress = InProgress(job: job, spec: spec, file: file, output: output, assembly: assembly,
                                              preview: preview, previewDirectory: previewDirectory, log: log)
                    running[job] = progress
                    progress.advance()
                } catch {
                    unbegun[job] = FarmError(FileErrorText.code(of: error) ?? .renderFailed, "\(error)")
                }
                return nil
            case .advance(let job):
                running[job]?.advance()
                return nil
            case .finish(let job):
                guard let progress = running.removeValue(forKey: job) else {
                    let reason = unbegun.removeValue(forKey: job) ?? FarmError(.internal, "the job's assembly was never begun")
                    return Finished(job: job, error: FarmError(reason.code, "assembly failed: \(reason.message)"))
                }
                do {
                    try progress.finish(job: job)
                    previewsToEnd.append(progress)
                    return Finished(job: job, error: nil, writing: progress.busy)
                } catch {
                    progress.assembly.abandon()
                    progress.dropPreview()
                    return Finished(job: job, error: FarmError(FileErrorText.code(of: error) ?? .renderFailed, "assembly failed: \(error)"), writing: progress.busy)
                }
            case .drop(let job, _):
                if let progress = running.removeValue(forKey: job) {
                    progress.assembly.abandon()
                    progress.dropPreview()
                }
                unbegun[job] = nil
                return nil
            }
        }
    }
}
