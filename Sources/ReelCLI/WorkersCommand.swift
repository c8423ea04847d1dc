import ArgumentParser
import Farm
import Foundation
import RenderEngine
import SessionKit

struct Workers: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the workers connected to a coordinator, or release one from quarantine.")
    @OptionGroup var farm: CoordinatorOption
    @Flag var json = false
    @Option(name: .customLong("release"), help: "Lift the quarantine of this worker id (an admin's key); then list the workers.")
    var release: String?

    func run() throws {
        let client = try farm.client()
        let workers = try farmCall { try release.map { try client.releaseWorker($0) } ?? client.workers() }
        if json { try printJSON(workers); return }
        for w in workers { print(Self.line(w, now: Date().timeIntervalSince1970)) }
    }

    /// One worker as a line: who, what it serves, how busy, and whether it takes shards.
    static func line(_ w: WorkerStatus, now: Double) -> String {
        let age = String(format: "%.1f", now - w.lastHeartbeat)
        let fps = String(format: "%.1f", w.framesPerSecond ?? 0)
        let memory = w.residentKB.map { "  \($0 / 1024) MiB" } ?? ""
        let pools = w.pools.map { "  pools \($0.joined(separator: ","))" } ?? ""
        var state = "  " + (w.state ?? .ready).rawValue
        if w.state == .quarantined {
            let left = w.quarantinedUntil.map { " for \(Int(max(0, $0 - now).rounded())) s" } ?? ""
            state += left + (w.quarantineReason.map { " (\($0))" } ?? "")
        }
        return "\(w.workerID)  \(w.host)\(pools)  slots \(w.slots)  busy \(w.busy)  done \(w.shardsDone)  \(fps) fps\(memory)  heartbeat \(age) s ago\(state)"
    }
}
