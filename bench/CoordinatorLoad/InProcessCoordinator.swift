import Farm
import Foundation
import Logging
import Synchronization

/// Starts a real coordinator on a thread of this process (`CoordinatorThread`).
@discardableResult
func startCoordinator(_ options: Coordinator.Options) throws -> (endpoint: String, startSeconds: Double, thread: CoordinatorThread) {
    // Warnings on standard error: a slow turn names its parts (docs/operations.md, "Loop lag").
    var logger = Logger(label: "reel.coordinator", factory: { StreamLogHandler.standardError(label: $0) })
    logger.logLevel = .warning
    let thread = try CoordinatorThread(options, logger: logger)
    return (thread.endpoint, thread.startSeconds, thread)
}

/// `--store URL`: the coordinator's store on that PostgreSQL server, in a new schema of
/// this run's own, and the coordinator leading it under a lease as a farm with standbys
/// does (each of its turns renews the lease). Without a URL, SQLite in the state directory.
func onStore(_ options: Coordinator.Options, _ url: String?) throws -> Coordinator.Options {
    guard let url else { return options }
    let schemaURL = try benchSchema(url)
    var options = options
    options.store = .postgres(url: schemaURL)
    let lease = try LeaderLease(url: schemaURL, candidate: "bench-\(getpid())")
    var term: LeaderLease.Term?
    let deadline = Date().addingTimeInterval(15)   // a coordinator of this run that stopped: its session ends
    while term == nil, Date() < deadline {
        term = try lease.tryToLead(endpoint: options.endpoint)
        if term == nil { Thread.sleep(forTimeInterval: 0.1) }
    }
    guard let term else { throw FarmError(.internal, "the bench's coordinator could not lead its store") }
    options.lead = (term, lease.seconds)
    benchStores.withLock { $0.leases.append(lease) }   // its connection lives as long as the run
    return options
}

/// The run's schemas by server, and the leases its coordinators hold.
private let benchStores = Mutex<(schemas: [String: String], leases: [LeaderLease])>(([:], []))

/// One schema per run and server: `bench_PID`.
private func benchSchema(_ url: String) throws -> String {
    try benchStores.withLock { stores in
        if let made = stores.schemas[url] { return made }
        let schema = "bench_\(getpid())"
        try PostgresDatabase(url: url).execute("CREATE SCHEMA \(schema)")
        let made = url + (url.contains("?") ? "&" : "?") + "options=-c%20search_path%3D" + schema
        stores.schemas[url] = made
        return made
    }
}
