import ArgumentParser
import Farm
import Foundation
import RenderEngine
import SessionKit

struct Workers: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the workers connected to a coordinator.")
    @OptionGroup var farm: CoordinatorOption
    @Flag var json = false

    func run() throws {
        let client = try farm.client()
        let workers = try farmCall { try client.workers() }
        if json { try printJSON(workers); return }
        for w in workers {
            let age = String(format: "%.1f", Date().timeIntervalSince1970 - w.lastHeartbeat)
            let fps = String(format: "%.1f", w.framesPerSecond ?? 0)
            let memory = w.residentKB.map { "  \($0 / 1024) MiB" } ?? ""
            print("\(w.workerID)  \(w.host)  slots \(w.slots)  busy \(w.busy)  done \(w.shardsDone)  \(fps) fps\(memory)  heartbeat \(age) s ago")
        }
    }
}
