import ArgumentParser
import Farm
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `reel watch JOB --preview-url`: a signed URL of the job's live preview playlist, asked
/// of the farm's HTTP API (the key that signs it lives there; docs/api.md, "Live preview").
struct PreviewURLOptions: ParsableArguments {
    @Flag(name: .customLong("preview-url"), help: "Print a signed URL of the job's live preview (HLS) that any player opens, and return.")
    var previewURL = false
    @Option(name: .customLong("api"), help: "The farm's HTTP API, http://HOST:PORT/v1 (or REEL_API).")
    var api: String?
    @Option(name: .customLong("api-token"), help: "A bearer token of the API (or REEL_API_TOKEN).")
    var token: String?
    @Option(name: .customLong("preview-seconds"), help: "How long the URL serves (1 … 604800).")
    var seconds = 3600

    func validate() throws {
        guard (1...604_800).contains(seconds) else { throw ValidationError("--preview-seconds \(seconds) is not from 1 to 604800") }
    }

    /// The playlist's absolute URL.
    func signedURL(job: String) throws -> String {
        let environment = ProcessInfo.processInfo.environment
        guard let base = (api ?? environment["REEL_API"]).map({ $0.hasSuffix("/") ? String($0.dropLast()) : $0 }),
              let endpoint = URL(string: "\(base)/jobs/\(job)/preview-url"), base.hasSuffix("/v1") else {
            throw ValidationError("--preview-url needs the HTTP API: --api http://HOST:PORT/v1 (or REEL_API)")
        }
        var request = URLRequest(url: endpoint, timeoutInterval: 30)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"seconds": \#(seconds)}"#.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let token = token ?? environment["REEL_API_TOKEN"] { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, status) = try Self.exchange(request)
        struct Signed: Decodable { var url: String }
        struct Refusal: Decodable { var error: FarmError }
        guard status == 201, let signed = try? JSONDecoder().decode(Signed.self, from: data) else {
            let reason = (try? JSONDecoder().decode(Refusal.self, from: data)).map { "\($0.error.message) (\($0.error.code.rawValue))" } ?? String(decoding: data.prefix(300), as: UTF8.self)
            throw PreviewURLError(description: "the API refused the preview URL of \(job) (HTTP \(status)): \(reason)")
        }
        return String(base.dropLast("/v1".count)) + signed.url
    }

    /// One exchange, waited for (the command is synchronous).
    private static func exchange(_ request: URLRequest) throws -> (Data, Int) {
        final class Outcome: @unchecked Sendable {   // written once by the completion, read after the semaphore
            var value: Result<(Data, Int), any Error> = .failure(URLError(.unknown))
        }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, error in
            if let error {
                outcome.value = .failure(error)
            } else {
                outcome.value = .success((data ?? Data(), (response as? HTTPURLResponse)?.statusCode ?? 0))
            }
            done.signal()
        }.resume()
        done.wait()
        return try outcome.value.get()
    }
}

struct PreviewURLError: Error, CustomStringConvertible {
    var description: String
}
