import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP exchange for a test, waited for (URLSession from Foundation: an independent
/// client, not the server's own code).
public struct HTTPExchange: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public var text: String { String(decoding: body, as: UTF8.self) }
    public var json: Any? { try? JSONSerialization.jsonObject(with: body) }

    public static func send(_ method: String, _ url: String, headers: [String: String] = [:], body: Data? = nil,
                            timeout: Double = 120) throws -> HTTPExchange {
        guard let target = URL(string: url) else { throw HTTPTestError("bad URL \(url)") }
        var request = URLRequest(url: target, timeoutInterval: timeout)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox()
        let task = URLSession.shared.dataTask(with: request) { data, response, error in
            if let response = response as? HTTPURLResponse {
                var fields: [String: String] = [:]
                for (key, value) in response.allHeaderFields {
                    if let key = key as? String, let value = value as? String { fields[key.lowercased()] = value }
                }
                box.set(.success(HTTPExchange(status: response.statusCode, headers: fields, body: data ?? Data())))
            } else {
                box.set(.failure(error ?? HTTPTestError("no response from \(url)")))
            }
            done.signal()
        }
        task.resume()
        done.wait()
        return try box.get()
    }

    private final class ResultBox: @unchecked Sendable {   // written once, before the semaphore is signalled
        private var result: Result<HTTPExchange, any Error> = .failure(HTTPTestError("no result"))
        func set(_ value: Result<HTTPExchange, any Error>) { result = value }
        func get() throws -> HTTPExchange { try result.get() }
    }
}

public struct HTTPTestError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
