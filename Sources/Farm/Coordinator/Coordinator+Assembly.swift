import CZeroMQ
import Foundation
import Logging
import RenderEngine
import SessionKit
import Synchronization

extension Coordinator {
    // MARK: Assembly

    /// A job of one file is assembled on the lane from its first chunk on (docs/rendering.md,
    /// "Assembly"); called when the job is created or resumed, before the scheduler has it
    /// (which may ask for its end at once).
    func beginAssembly(of job: ScheduledJob) {
        guard job.spec.layout == .whole else { return }
        assemblyLane.post(.begin(job: job.id, spec: job.spec, output: resultPath(job: job.id, layout: .whole).path,
                                 preview: previewDirectory(job: job.id).path, chunks: chunkPaths(job: job.id, count: job.spec.tasks.count)))
    }

    /// Every chunk is stored: the lane writes the index of a job of one file; a job of one
    /// file per segment is assembled now on a finishing thread.
    func startAssembly(_ id: String) {
        guard let job = scheduler.jobs[id] else { return }
        let spec = job.spec
        if spec.layout == .whole {
            ledger.assemblyBegan(id, at: Date())
            assemblyLane.post(.finish(job: id))
            return
        }
        let chunks = chunkPaths(job: id, count: job.tasks.count)
        let output = resultPath(job: id, layout: spec.layout).path
        let finished = finishedAssemblies
        finishing.queue.post {
            let started = Date()
            do {
                try spec.assemble(to: output) { chunks[$0] }
                finished.post((id, nil, Date().timeIntervalSince(started), nil))
            } catch {
                finished.post((id, FarmError(.renderFailed, "assembly failed: \(error)"), Date().timeIntervalSince(started), nil))
            }
        }
    }

    /// Sends an assembled result where its job asked (docs/api.md, "Output to a URL"), on
    /// a finishing thread: the job is done only once it is there.
    func publish(_ id: String, to destination: OutputTarget, owner: String?, assembledIn seconds: Double) {
        let output = resultPath(job: id, layout: .whole).path
        let finished = finishedAssemblies
        // One tenant's hanging upload targets hold only its share of the connections.
        let origins = options.origins.onBehalf(of: owner ?? "")
        finishing.queue.post {
            let started = Date()
            do {
                let published = try origins.publish(output, sidecar: Sidecar.path(for: output), to: destination)
                finished.post((id, nil, seconds + Date().timeIntervalSince(started), published))
            } catch {
                unlink(output)
                unlink(Sidecar.path(for: output))
                finished.post((id, FarmError(FarmErrorCode.of(error), "sending the result failed: \(error)"),
                               seconds + Date().timeIntervalSince(started), nil))
            }
        }
    }

    /// Assemblies the lane has finished: published first where the job asked.
    func collectLane() {
        for done in assemblyLane.finished.take() {
            guard let job = scheduler.jobs[done.job] else { continue }
            // From the last chunk stored: the lane's queue, the index and the sidecar.
            let seconds = ledger.assemblyEnded(done.job, at: Date())
            log(String(format: "job %@: index written %.3f s after the last chunk; %.2f s writing the file in all", done.job, seconds, done.writing),
                LogIDs(job: done.job), level: .debug)
            if done.error == nil, let destination = job.spec.destination {
                publish(done.job, to: destination, owner: job.owner, assembledIn: seconds)
            } else {
                finishedAssemblies.post((done.job, done.error, seconds, nil))
            }
        }
    }

    func collectAssemblies() {
        collectLane()
        for (id, error, seconds, published) in finishedAssemblies.take() {
            guard let job = scheduler.jobs[id] else { continue }
            if let published {
                do {
                    try store.setPublished(id, String(decoding: try JSONEncoder().encode(published), as: UTF8.self))
                    log("job \(id) sent to \(published.url) (\(published.bytes) bytes, sha256 \(published.sha256))", LogIDs(job: id))
                } catch {
                    log("job \(id): could not record where its result went: \(error)", LogIDs(job: id), level: .warning)
                }
            }
            ledger.assembled(id, seconds: seconds, peakRSSKB: job.workerPeakRSSKB)
            CoordinatorMetrics.assembly.recordSeconds(seconds)
            log("job \(id) assembled in \(String(format: "%.2f", seconds)) s", LogIDs(job: id))
            apply(scheduler.handle(.assembled(id, error: error), now: Self.now))
        }
    }
}
