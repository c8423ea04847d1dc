import Farm
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ReelTestSupport
import Testing
@testable import FarmHTTP

/// The API's routes in process: Hummingbird's router driven without a socket, against a
/// real coordinator running on a thread of this process (ZeroMQ over ipc://), no worker.
/// What a client sees when the farm refuses: the status of the farm's code, and the code.
@Suite(.serialized) struct APIRoutesTests {
    @Test func refusalsAnswerWithTheirCodesStatus() async throws {
        let dir = try TestEnvironment.scratchDirectory()
        let coordinator = try CoordinatorThread(.scratch(in: dir))
        defer { coordinator.stop() }
        let gateway = FarmGateway(endpoint: coordinator.endpoint, curve: nil)
        let router = APIServer.router(gateway: gateway, tokens: nil,
                                      uploads: dir.appendingPathComponent("state/api-uploads"))
        let id = "sha256:" + String(repeating: "ab", count: 32)
        try await Application(router: router).test(.router) { client in
            func code(_ response: TestResponse) -> String? {
                ((try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: [String: String]])?["error"]?["code"]
            }
            try await client.execute(uri: "/v1/jobs", method: .get) { response in
                #expect(response.status == .ok && String(buffer: response.body) == "[]")
            }
            for method in [HTTPRequest.Method.get, .delete] {
                try await client.execute(uri: "/v1/jobs/nosuch", method: method) { response in
                    #expect(response.status == .notFound, "\(method)")
                    #expect(code(response) == "noSuchJob", "\(String(buffer: response.body))")
                }
            }
            try await client.execute(uri: "/v1/jobs?limit=2000", method: .get) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(uri: "/v1/jobs?after=garbage", method: .get) { response in
                #expect(response.status == .unprocessableContent && code(response) == "invalidInput", "\(String(buffer: response.body))")
            }
            try await client.execute(uri: "/v1/media/sha256%3A" + id.dropFirst(7), method: .head) { response in
                #expect(response.status == .notFound && response.headers[APIRoutes.uploadOffset] == "0")
            }
            try await client.execute(uri: "/v1/media/sha256:ABC", method: .head) { response in
                #expect(response.status == .badRequest)
            }
            let body = ByteBuffer(string: #"{"session": {"video": {"videoSegments": [{"source": "a.mp4"}]}}, "files": {"a.mp4": "\#(id)"}}"#)
            try await client.execute(uri: "/v1/jobs", method: .post, body: body) { response in
                #expect(response.status == .conflict, "\(String(buffer: response.body))")
                #expect(String(buffer: response.body).contains(id))
            }
            // Orders and reads of one job are one call: the coordinator checks the job's
            // owner (and, for a download, that it is done) with the request itself.
            for (method, path, body) in [(HTTPRequest.Method.delete, "/v1/jobs/nosuch", nil), (.patch, "/v1/jobs/nosuch", #"{"priority": 2}"#),
                                         (.get, "/v1/jobs/nosuch/shards", nil), (.get, "/v1/jobs/nosuch/output", nil),
                                         (.get, "/v1/jobs/nosuch/preview.m3u8", nil)] {
                let before = gateway.pool.callsMade
                try await client.execute(uri: path, method: method, body: body.map { ByteBuffer(string: $0) }) { response in
                    #expect(response.status == .notFound && code(response) == "noSuchJob", "\(method) \(path): \(String(buffer: response.body))")
                }
                #expect(gateway.pool.callsMade - before == 1, "\(method) \(path)")
            }
            let bad = ByteBuffer(string: #"{"session": {"video": {"videoSegments": [{"source": "a.mp4"}]}}, "files": {"a.mp4": "sha256:12"}}"#)
            try await client.execute(uri: "/v1/jobs", method: .post, body: bad) { response in
                #expect(response.status == .unprocessableContent && String(buffer: response.body).contains("files.a.mp4"))
            }
        }
    }
}
