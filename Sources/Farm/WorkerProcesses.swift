import Foundation
import Synchronization

/// The `reel worker` processes of an embedded farm (`EmbeddedFarm`): planned when the farm
/// starts, started when its work calls for them, killed when it stops. Workers are
/// stateless, so SIGKILL is how they stop (it also works where a parent blocked SIGTERM
/// for its children).
final class WorkerProcesses: Sendable {
    private struct Planned {
        var executable: String
        var arguments: [[String]]
    }

    private let planned = Mutex<Planned?>(nil)
    private let started = Mutex<[Process]>([])

    /// `count` processes of `executable`, the i-th (from 1) with `arguments(i)`.
    func plan(executable: String, count: Int, arguments: (Int) -> [String]) {
        let list = count > 0 ? (1...count).map(arguments) : []
        planned.withLock { $0 = Planned(executable: executable, arguments: list) }
    }

    /// Starts the planned processes, once.
    func start() throws {
        guard let plan = planned.withLock({ value -> Planned? in defer { value = nil }; return value }) else { return }
        for arguments in plan.arguments {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: plan.executable)
            process.arguments = arguments
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.environment = EmbeddedFarm.workerEnvironment
            try process.run()
            started.withLock { $0.append(process) }
        }
    }

    /// How many were started.
    var count: Int { started.withLock { $0.count } }

    /// Kills every started process and waits for it to exit.
    func stop() {
        let processes = started.withLock { list -> [Process] in defer { list = [] }; return list }
        for process in processes where process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        for process in processes { process.waitUntilExit() }
    }

    /// Kills and reaps every started process from a signal handler, which then exits.
    func killNow() {
        for pid in started.withLock({ $0.map(\.processIdentifier) }) {
            Foundation.kill(pid, SIGKILL)
            waitpid(pid, nil, 0)
        }
    }
}
