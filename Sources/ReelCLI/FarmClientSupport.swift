import ArgumentParser
import Farm
import Foundation
import RenderEngine
import SessionKit

/// `--coordinator URL` (repeatable: a leader and its standbys), else `REEL_COORDINATOR`
/// (commas between several), else the local default.
struct CoordinatorOption: ParsableArguments {
    @Option(help: "Coordinator endpoint; repeat it for coordinators that stand by for each other (default: $REEL_COORDINATOR, commas between several, or tcp://127.0.0.1:7700).")
    var coordinator: [String] = []

    @OptionGroup var keys: CurveClientOptions

    @Option(name: .customLong("timeout"), help: ArgumentHelp("Seconds to wait for the coordinator's answer.", valueName: "seconds"))
    var timeout: Double = 30

    /// Whether a coordinator was named at all (else a command may run a farm of its own).
    var isGiven: Bool { !coordinator.isEmpty || ProcessInfo.processInfo.environment["REEL_COORDINATOR"] != nil }

    private var given: [String] {
        if !coordinator.isEmpty { return coordinator }
        let named = ProcessInfo.processInfo.environment["REEL_COORDINATOR"]?.split(separator: ",").map(String.init) ?? []
        return named.isEmpty ? ["tcp://127.0.0.1:7700"] : named
    }

    func client() throws -> FarmClient {
        let curve = try keys.curve()
        var endpoints: [String] = []
        for text in given {
            switch FarmEndpoint.normalized(text) {
            case .success(let endpoint): endpoints.append(endpoint)
            case .failure(let error):
                printError("error: --coordinator \(error)")
                throw Reported(code: ExitStatus.invalidInput)
            }
        }
        let endpoint = endpoints.joined(separator: ", ")
        do {
            let client = try FarmClient(endpoints: endpoints, curve: curve)
            client.timeoutSeconds = max(1, timeout)
            client.onSlowAnswer = { printError("waiting for the coordinator at \($0)… (--timeout \(Int(max(1, timeout))) s)") }
            return client
        } catch {
            printError("error: cannot reach \(endpoint): \(error)")
            throw Reported(code: ExitStatus.invalidInput)
        }
    }
}

/// Runs a client call; its failure is one line, and exit 2 when the request itself was
/// wrong (by the farm's error code), 1 otherwise.
func farmCall<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch {
        throw reported(error)
    }
}

func farmCall<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch {
        throw reported(error)
    }
}

private func reported(_ error: any Error) -> Reported {
    if let reported = error as? Reported { return reported }
    printError("error: \(error)")
    switch (error as? FarmError)?.code {
    case .invalidInput, .noSuchJob, .notOwner, .alreadyEnded, .notEnded, .resultGone: return Reported(code: ExitStatus.invalidInput)
    default: return Reported(code: ExitStatus.failure)
    }
}

/// Follows a job to its end; one that did not finish is one error line and exit 1.
func followToDone(_ client: FarmClient, _ job: String, showProgress: Bool) throws {
    let printer = ProgressPrinter()
    let final = try farmCall { try client.watch(job) { if showProgress { printer.update($0) } } }
    if showProgress { printer.finish(succeeded: final.state == .done) }
    guard final.state == .done else {
        printError("error: job \(job) \(final.state.rawValue): \(final.error?.message ?? "")")
        throw Reported(code: ExitStatus.failure)
    }
}


struct AnyEncodable: Encodable {
    let encode: (Encoder) throws -> Void
    init<T: Encodable>(_ value: T) { encode = value.encode }
    func encode(to encoder: Encoder) throws { try encode(encoder) }
}

/// `--bind` and `--connect`: an endpoint with its scheme, or HOST:PORT read as tcp://.
func parseEndpoint(_ text: String) throws -> String {
    switch FarmEndpoint.normalized(text) {
    case .success(let endpoint): return endpoint
    case .failure(let error): throw ValidationError(error.message)
    }
}
