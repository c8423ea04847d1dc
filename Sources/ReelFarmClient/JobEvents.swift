import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A job's statuses from its Server-Sent Events (docs/api.md, "Events"), ending with its
/// final status. A stream that drops is opened again with `Last-Event-ID`, and the farm
/// sends only statuses newer than that one: none is repeated, and the end is never lost.
/// Intermediate progress may be skipped (the farm keeps only the newest for a slow reader).
public struct JobEvents: AsyncSequence, Sendable {
    public typealias Element = JobStatus
    let client: ReelFarm
    let job: String

    public func makeAsyncIterator() -> Iterator { Iterator(client: client, job: job) }

    public struct Iterator: AsyncIteratorProtocol {
        let client: ReelFarm
        let job: String
        private var lines: AsyncThrowingStream<String, any Error>.Iterator?
        private var lastID: String?
        private var ended = false
        private var drops = 0
        /// The event being read: its id, and its data lines.
        private var id: String?
        private var data: [String] = []

        init(client: ReelFarm, job: String) {
            self.client = client
            self.job = job
        }

        public mutating func next() async throws -> JobStatus? {
            while !ended {
                if lines == nil { lines = try open().makeAsyncIterator() }
                let line: String?
                do {
                    line = try await lines?.next()
                } catch let error as ReelFarmError {
                    throw error
                } catch {
                    line = nil   // dropped: opened again below
                }
                guard let line else {
                    lines = nil
                    drops += 1
                    guard drops <= client.retries else {
                        throw ReelFarmError.unexpectedAnswer(status: 0, detail: "the event stream of \(job) ended \(drops) times before the job did")
                    }
                    id = nil
                    data = []
                    continue
                }
                if line.isEmpty {
                    guard !data.isEmpty else { continue }
                    let text = data.joined(separator: "\n")
                    data = []
                    if let id { lastID = id }
                    id = nil
                    guard let status = try? JSONDecoder().decode(JobStatus.self, from: Data(text.utf8)) else {
                        throw ReelFarmError.unexpectedAnswer(status: 200, detail: "an event that is not a status: \(text.prefix(200))")
                    }
                    if status.state.isFinal { ended = true }
                    return status
                } else if line.hasPrefix("data:") {
                    data.append(String(line.dropFirst(5).drop { $0 == " " }))
                } else if line.hasPrefix("id:") {
                    id = String(line.dropFirst(3).drop { $0 == " " })
                }
            }
            return nil
        }

        private func open() throws -> AsyncThrowingStream<String, any Error> {
            var headers = ["Accept": "text/event-stream"]
            if let lastID { headers["Last-Event-ID"] = lastID }
            let request = try client.makeRequest("GET", "jobs/\(try ReelFarm.segment(job))/events", headers: headers)
            return EventLines.stream(request, configuration: client.session.configuration)
        }
    }
}

/// The lines of one streamed response, as they arrive (a delegate's `didReceive data`: the
/// async `bytes(for:)` is not in every Foundation). A status other than 200 ends the
/// stream with the farm's error.
final class EventLines: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Touched only from the session's serial delegate queue.
    private var buffer = Data()
    private var status = 0
    private var body = Data()
    private let continuation: AsyncThrowingStream<String, any Error>.Continuation

    private init(_ continuation: AsyncThrowingStream<String, any Error>.Continuation) {
        self.continuation = continuation
    }

    static func stream(_ request: URLRequest, configuration: URLSessionConfiguration) -> AsyncThrowingStream<String, any Error> {
        AsyncThrowingStream { continuation in
            let reader = EventLines(continuation)
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            let session = URLSession(configuration: configuration, delegate: reader, delegateQueue: queue)
            let task = session.dataTask(with: request)
            continuation.onTermination = { _ in
                task.cancel()
                session.finishTasksAndInvalidate()
            }
            task.resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        status = (response as? HTTPURLResponse)?.statusCode ?? 0
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard status == 200 else { body.append(data.prefix(65_536 - body.count)); return }
        buffer.append(data)
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            var line = buffer[buffer.startIndex..<newline]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            continuation.yield(String(decoding: line, as: UTF8.self))
            buffer.removeSubrange(buffer.startIndex...newline)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if status != 200, error == nil || status != 0 {
            continuation.finish(throwing: ReelFarmError.from(status: status, body: body))
        } else if let error {
            continuation.finish(throwing: error)
        } else {
            continuation.finish()
        }
        session.finishTasksAndInvalidate()
    }
}
