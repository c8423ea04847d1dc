import ArgumentParser
import Farm
import Foundation

/// CURVE keys of a worker or client: its own key pair and the coordinator's public key
/// (options, else `REEL_CURVE_KEY` / `REEL_SERVER_KEY`). Both or neither.
struct CurveClientOptions: ParsableArguments {
    @Option(name: .customLong("curve-key"), help: "This side's key file from `reel keygen` (default: $REEL_CURVE_KEY).")
    var curveKey: String?

    @Option(name: .customLong("server-key"), help: "The coordinator's public key, or its .pub file (default: $REEL_SERVER_KEY).")
    var serverKey: String?

    private var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// The keys to use, `nil` for a plain connection; a bad key file is invalid input.
    func curve() throws -> CurveClient? {
        let keyFile = curveKey ?? environment["REEL_CURVE_KEY"]
        let server = serverKey ?? environment["REEL_SERVER_KEY"]
        switch (keyFile, server) {
        case (nil, nil): return nil
        case (.some, nil): throw invalid("--curve-key needs --server-key (the coordinator's public key)")
        case (nil, .some): throw invalid("--server-key needs --curve-key (this side's key file from reel keygen)")
        case let (.some(keyFile), .some(server)):
            do {
                return CurveClient(keys: try CurveKeyPair.load(path: keyFile), serverKey: try CurveKeyPair.publicKey(server))
            } catch {
                throw invalid("\(error)")
            }
        }
    }

    private func invalid(_ message: String) -> Reported {
        printError("error: \(message)")
        return Reported(code: ExitStatus.invalidInput)
    }
}

struct Keygen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make a CURVE key pair: NAME.key (secret, mode 600) and NAME.pub; prints the public key.")

    @Argument(help: "Path and name of the key files, without extension.")
    var name: String

    func run() throws {
        do {
            let keys = try CurveKeyPair.generate()
            try keys.write(name: name)
            print(keys.publicKey)
        } catch let error as CurveKeyError {
            printError("error: \(error)")
            throw Reported(code: ExitStatus.invalidInput)
        }
    }
}
