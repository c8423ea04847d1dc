import Farm
import Foundation

extension CoordinatorThread {
    /// A coordinator of its own on `ipc://` in `directory`, its state there too, keeping
    /// no disk space free: what the API's in-process tests talk to.
    static func scratch(in directory: URL) throws -> CoordinatorThread {
        var options = Coordinator.Options(endpoint: "ipc://" + directory.appendingPathComponent("c.ipc").path,
                                          stateDirectory: directory.appendingPathComponent("state"))
        options.minimumFreeBytes = 0
        return try CoordinatorThread(options)
    }
}
