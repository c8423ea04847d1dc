import FarmWire
import Foundation
import ReelTestSupport
import Synchronization
import Testing

/// docs/api.md: the HTTP API against a running coordinator and a real worker, spoken to
/// with Foundation's URLSession — media uploaded, a job submitted, its events followed
/// to the end, its output downloaded whole and by range and compared byte for byte with
/// `reel render`; problems as 422 with JSON paths; tokens: 401 without, 404 for another
/// client's job.
@Suite(.serialized) struct HTTPAPITests {
    static let alice = "alice-token-0123456789abcdefghij"
    static let bob = "bob-token-0123456789abcdefghijkl"
    static let admin = "admin-token-0123456789abcdefghij"

    func start(_ farm: FarmFixture) throws -> String {
        try TestEnvironment.write("""
        # token role name
        \(Self.alice) client alice
        \(Self.bob) client bob
        \(Self.admin) admin ops
        """, to: "tokens", in: farm.dir)
        // No upload cap in the way: its 413 has a test of its own (BodyLimitsTests), this one reaches the disk's 507.
        try farm.startCoordinator(["--http", "127.0.0.1:0", "--api-tokens", "tokens", "--max-upload", "1000000000000"])
        try farm.startWorker("a")
        return try farm.apiBase()
    }

    func contentID(_ path: String) throws -> String {
        let result = try ProcessRunner.run("/usr/bin/sha256sum", [path])
        return "sha256:" + (result.stdout.split(separator: " ").first.map(String.init) ?? "")
    }

    func auth(_ token: String, _ extra: [String: String] = [:]) -> [String: String] {
        extra.merging(["Authorization": "Bearer \(token)"]) { $1 }
    }

    @Test func submitFollowAndDownloadOverHTTPMatchesReelRender() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 2)
        let base = try start(farm)
        let session = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: farm.path("s.json"))))
        let files = ["a.mp4": try contentID(farm.path("a.mp4")), "b.mp4": try contentID(farm.path("b.mp4"))]
        let job: [String: Any] = ["session": session, "files": files, "settings": ["keyframeIntervalSeconds": 0.5]]
        let body = try JSONSerialization.data(withJSONObject: job)
        let json = ["Content-Type": "application/json"]

        // Media first: the coordinator lacks it, and says which.
        let missing = try HTTPExchange.send("POST", "\(base)/jobs", headers: auth(Self.alice, json), body: body)
        #expect(missing.status == 409, "\(missing.text)")
        #expect(Set((missing.json as? [String: Any])?["missing"] as? [String] ?? []) == Set(files.values))
        // A body that does not hash to its content id is refused and not kept.
        let forged = try HTTPExchange.send("PUT", "\(base)/media/\(files["a.mp4"] ?? "")", headers: auth(Self.alice),
                                           body: Data("not the clip".utf8))
        #expect(forged.status == 422, "\(forged.text)")
        for (reference, id) in files {
            let put = try HTTPExchange.send("PUT", "\(base)/media/\(id)", headers: auth(Self.alice),
                                            body: try Data(contentsOf: URL(fileURLWithPath: farm.path(reference))))
            #expect(put.status == 201, "\(put.text)")
        }

        let keyed = auth(Self.alice, json.merging(["Idempotency-Key": "upload-7f3a"]) { $1 })
        let created = try HTTPExchange.send("POST", "\(base)/jobs", headers: keyed, body: body)
        #expect(created.status == 201, "\(created.text)")
        let id = try #require(((created.json as? [String: Any])?["job"] as? [String: Any])?["jobID"] as? String)
        #expect(created.headers["location"] == "/v1/jobs/\(id)")
        // A retry under the same key is the same job; the key with another body is refused.
        let retried = try HTTPExchange.send("POST", "\(base)/jobs", headers: keyed, body: body)
        #expect(retried.status == 201 && retried.headers["location"] == "/v1/jobs/\(id)", "\(retried.text)")
        var other = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        other["priority"] = 7
        let reused = try HTTPExchange.send("POST", "\(base)/jobs", headers: keyed, body: try JSONSerialization.data(withJSONObject: other))
        #expect(reused.status == 422 && reused.text.contains("Idempotency-Key"), "\(reused.text)")
        let badKey = try HTTPExchange.send("POST", "\(base)/jobs", headers: auth(Self.alice, json.merging(["Idempotency-Key": "a b"]) { $1 }), body: body)
        #expect(badKey.status == 422, "\(badKey.text)")

        // Server-Sent Events until the job ends: progress, then `done`.
        let events = try HTTPExchange.send("GET", "\(base)/jobs/\(id)/events", headers: auth(Self.alice))
        #expect(events.status == 200)
        #expect(events.headers["content-type"]?.hasPrefix("text/event-stream") == true)
        let names = events.text.split(separator: "\n").filter { $0.hasPrefix("event: ") }.map { $0.dropFirst(7) }
        #expect(names.last == "done", "\(names)")
        #expect(names.dropLast().allSatisfy { $0 == "progress" })
        let dataLines = events.text.split(separator: "\n").filter { $0.hasPrefix("data: ") }
        #expect(dataLines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.dropFirst(6).utf8))) != nil })

        let output = try HTTPExchange.send("GET", "\(base)/jobs/\(id)/output", headers: auth(Self.alice))
        #expect(output.status == 200)
        #expect(output.headers["content-type"] == "video/mp4")
        let reference = try farm.reference()
        #expect(output.body == reference, "HTTP output \(output.body.count) bytes, reel render \(reference.count)")
        let slice = try HTTPExchange.send("GET", "\(base)/jobs/\(id)/output", headers: auth(Self.alice, ["Range": "bytes=100-1099"]))
        #expect(slice.status == 206)
        #expect(slice.headers["content-range"] == "bytes 100-1099/\(reference.count)")
        #expect(slice.body == reference.subdata(in: 100..<1100))
        let tail = try HTTPExchange.send("GET", "\(base)/jobs/\(id)/output", headers: auth(Self.alice, ["Range": "bytes=-10"]))
        #expect(tail.body == reference.suffix(10))
        let beyond = try HTTPExchange.send("GET", "\(base)/jobs/\(id)/output",
                                           headers: auth(Self.alice, ["Range": "bytes=\(reference.count)-"]))
        #expect(beyond.status == 416)
        // A segment's thumbnail from the job's stored session: a JPEG that fits the box.
        let thumbnail = try HTTPExchange.send("GET", "\(base)/jobs/\(id)/segments/1/thumbnail?time=0.5&size=120x90", headers: auth(Self.alice))
        #expect(thumbnail.status == 200, "\(thumbnail.text.prefix(300))")
        #expect(thumbnail.headers["content-type"] == "image/jpeg")
        #expect(thumbnail.body.prefix(2) == Data([0xFF, 0xD8]))
        try thumbnail.body.write(to: URL(fileURLWithPath: farm.path("thumb.jpg")))
        let probe = try FFprobe.streams(farm.path("thumb.jpg")).first
        #expect((probe?.width ?? 0) <= 120 && (probe?.height ?? 0) <= 90 && (probe?.width ?? 0) > 0, "\(String(describing: probe))")
        #expect(try HTTPExchange.send("GET", "\(base)/jobs/\(id)/segments/9/thumbnail", headers: auth(Self.alice)).status == 422)
        #expect(try HTTPExchange.send("GET", "\(base)/jobs/\(id)/segments/0/thumbnail?size=900x900", headers: auth(Self.alice)).status == 400)
        #expect(try HTTPExchange.send("GET", "\(base)/jobs/\(id)/segments/0/thumbnail", headers: auth(Self.bob)).status == 404)
        // The time shown and the worker's time; a tolerance that reaches the clip's first
        // keyframe (the samples have one, at 0) shows it, one that does not the exact frame.
        let exactTime = thumbnail.headers["reel-picture-time"].flatMap(Double.init) ?? -1
        #expect(exactTime <= 0.5 && exactTime > 0.45, "\(thumbnail.headers)")
        #expect(thumbnail.headers["server-timing"]?.contains("desc=\"made\"") == true, "\(thumbnail.headers)")
        let again = try HTTPExchange.send("GET", "\(base)/jobs/\(id)/segments/1/thumbnail?time=0.5&size=120x90", headers: auth(Self.alice))
        #expect(again.body == thumbnail.body && again.headers["server-timing"]?.contains("desc=\"cached\"") == true)
        for (query, shown) in [("time=0.3&tolerance=0.5", 0.0), ("time=1.5&tolerance=0.2", 1.5)] {
            let tolerant = try HTTPExchange.send("GET", "\(base)/jobs/\(id)/segments/1/thumbnail?\(query)&size=120x90", headers: auth(Self.alice))
            let time = tolerant.headers["reel-picture-time"].flatMap(Double.init) ?? -1
            #expect(tolerant.status == 200 && time <= shown && time > shown - 0.05, "\(query): \(tolerant.headers)")
        }
        let negative = try HTTPExchange.send("GET", "\(base)/jobs/\(id)/segments/1/thumbnail?tolerance=-1", headers: auth(Self.alice))
        #expect(negative.status == 400 && negative.text.contains("tolerance"), "\(negative.text)")
        let sidecar = try HTTPExchange.send("GET", "\(base)/jobs/\(id)/sidecar", headers: auth(Self.alice))
        #expect(sidecar.status == 200 && sidecar.json != nil)

        // Tokens: none is 401; to bob alice's job is unknown (404), nor is it listed; the admin may.
        #expect(try HTTPExchange.send("GET", "\(base)/jobs/\(id)").status == 401)
        #expect(try HTTPExchange.send("GET", "\(base)/jobs/\(id)", headers: auth("wrong-token-0123456789abcdefghij")).status == 401)
        #expect(try HTTPExchange.send("GET", "\(base)/jobs/\(id)", headers: auth(Self.bob)).status == 404)
        #expect(try HTTPExchange.send("GET", "\(base)/jobs/\(id)/output", headers: auth(Self.bob)).status == 404)
        #expect(try HTTPExchange.send("DELETE", "\(base)/jobs/\(id)", headers: auth(Self.bob)).status == 404)
        // A finished job cannot be cancelled nor reprioritised: the client's mistake (409), with
        // the farm's code beside the message, never a server error.
        let lateCancel = try HTTPExchange.send("DELETE", "\(base)/jobs/\(id)", headers: auth(Self.alice))
        #expect(lateCancel.status == 409, "\(lateCancel.text)")
        #expect(((lateCancel.json as? [String: Any])?["error"] as? [String: Any])?["code"] as? String == "alreadyEnded", "\(lateCancel.text)")
        let latePriority = try HTTPExchange.send("PATCH", "\(base)/jobs/\(id)", headers: auth(Self.alice), body: Data(#"{"priority": 3}"#.utf8))
        #expect(latePriority.status == 409, "\(latePriority.text)")
        let bobsList = try HTTPExchange.send("GET", "\(base)/jobs", headers: auth(Self.bob))
        #expect((bobsList.json as? [Any])?.count == 0, "\(bobsList.text)")
        let adminView = try HTTPExchange.send("GET", "\(base)/jobs/\(id)", headers: auth(Self.admin))
        #expect(adminView.status == 200)
        #expect((adminView.json as? [String: Any])?["owner"] as? String == "token:alice")
        #expect(try HTTPExchange.send("GET", "\(base)/jobs/nosuchjob", headers: auth(Self.admin)).status == 404)
        // Its memory as its heartbeats report it (an idle worker sends one a second; the job
        // may have ended before the first), and a rate (0 once it has been idle 10 s).
        var worker: [String: Any]?
        let reported = try farm.waitUntil(10) {
            let workers = try HTTPExchange.send("GET", "\(base)/workers", headers: auth(Self.bob))
            #expect((workers.json as? [Any])?.count == 1)
            worker = (workers.json as? [[String: Any]])?.first
            return ((worker?["residentKB"] as? Int) ?? 0) > 10_000
        }
        #expect(reported, "\(worker ?? [:])")
        #expect(worker?["framesPerSecond"] is Double || worker?["framesPerSecond"] is Int)
    }

    /// docs/api.md, "Errors": every refusal of the API, whoever refuses (a route, the
    /// coordinator, Hummingbird itself), is `{"error": {"code", "message"}}`, and its status
    /// is the one the code stands for — so no client needs a table of statuses. One row per
    /// refusal a farm with a finished job can be asked for; the statuses are written out
    /// here from docs/api.md, not read from the code under test. (429 and 503 are checked
    /// with their limits in HostileClientTests; 504 takes the gateway's 30 s.)
    @Test func everyRefusalCarriesItsCode() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        let base = try start(farm)
        let files = try farm.uploadMedia(to: base, token: Self.alice)
        let session = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: farm.path("s.json"))))
        let created = try HTTPExchange.send("POST", "\(base)/jobs", headers: auth(Self.alice),
                                            body: try JSONSerialization.data(withJSONObject: ["session": session, "files": files]))
        let id = try #require(((created.json as? [String: Any])?["job"] as? [String: Any])?["jobID"] as? String, "\(created.text)")
        #expect(try farm.waitUntil(60) {
            (try HTTPExchange.send("GET", "\(base)/jobs/\(id)", headers: auth(Self.alice)).json as? [String: Any])?["state"] as? String == "done"
        })
        let unknown = "sha256:" + String(repeating: "7e", count: 32)
        let missingBody = try JSONSerialization.data(withJSONObject: ["session": session, "files": ["a.mp4": unknown, "b.mp4": unknown]])
        let invalidBody = try JSONSerialization.data(withJSONObject: ["session": session, "files": ["a.mp4": "sha256:12"]])
        struct Row {
            var method: String, path: String, token: String?, headers: [String: String] = [:], body: Data? = nil
            var status: Int, code: String
        }
        var rows = [
            Row(method: "GET", path: "/jobs?limit=2000", token: Self.alice, status: 400, code: "malformed"),
            Row(method: "HEAD", path: "/media/sha256:ABC", token: Self.alice, status: 400, code: "malformed"),
            Row(method: "GET", path: "/jobs/\(id)", token: nil, status: 401, code: "unauthorized"),
            Row(method: "GET", path: "/jobs/\(id)", token: Self.bob, status: 404, code: "noSuchJob"),
            Row(method: "DELETE", path: "/jobs/\(id)", token: Self.bob, status: 404, code: "noSuchJob"),
            Row(method: "GET", path: "/jobs/\(id)/output?expires=99999999999&signature=forged", token: nil, status: 403, code: "forbidden"),
            Row(method: "GET", path: "/jobs/nosuchjob", token: Self.alice, status: 404, code: "noSuchJob"),
            Row(method: "GET", path: "/batches/nosuchbatch", token: Self.alice, status: 404, code: "notFound"),
            Row(method: "GET", path: "/nothing/here", token: Self.alice, status: 404, code: "notFound"),
            Row(method: "DELETE", path: "/workers", token: Self.alice, status: 405, code: "methodNotAllowed"),
            Row(method: "DELETE", path: "/jobs/\(id)", token: Self.alice, status: 409, code: "alreadyEnded"),
            Row(method: "PATCH", path: "/jobs/\(id)", token: Self.alice, body: Data(#"{"priority": 3}"#.utf8), status: 409, code: "alreadyEnded"),
            Row(method: "POST", path: "/jobs", token: Self.alice, body: missingBody, status: 409, code: "missingMedia"),
            Row(method: "PUT", path: "/media/\(unknown)", token: Self.alice, headers: ["Content-Range": "bytes 5-9/100"],
                body: Data("12345".utf8), status: 409, code: "offsetMismatch"),
            Row(method: "POST", path: "/jobs", token: Self.alice, body: Data(count: 5 << 20), status: 413, code: "tooLarge"),
            Row(method: "GET", path: "/jobs/\(id)/output", token: Self.alice, headers: ["Range": "bytes=99999999-"], status: 416,
                code: "rangeNotSatisfiable"),
            Row(method: "POST", path: "/jobs", token: Self.alice, body: invalidBody, status: 422, code: "invalidInput"),
            Row(method: "PUT", path: "/media/\(unknown)", token: Self.alice, headers: ["Content-Range": "bytes 0-4/1000000000000000"],
                body: Data("12345".utf8), status: 507, code: "storageFull"),
        ]
        // Once its result is deleted (`reel fetch --delete`), the job's output is gone.
        rows.append(Row(method: "GET", path: "/jobs/\(id)/output", token: Self.alice, status: 410, code: "resultGone"))
        for row in rows {
            if row.code == "resultGone" {
                let deleted = try farm.reel(["fetch", id, "-o", farm.path("fetched.mp4"), "--delete"])
                #expect(deleted.status == 0, "\(deleted.stderr)")
            }
            let answer = try HTTPExchange.send(row.method, base + row.path, headers: row.token.map { auth($0, row.headers) } ?? row.headers,
                                               body: row.body)
            let label = "\(row.method) \(row.path): \(answer.status) \(answer.text.prefix(300))"
            #expect(answer.status == row.status, "\(label)")
            guard row.method != "HEAD" else { continue }   // a HEAD answer has no body
            let error = (answer.json as? [String: Any])?["error"] as? [String: Any]
            #expect(error?["code"] as? String == row.code, "\(label)")
            #expect((error?["message"] as? String)?.isEmpty == false, "\(label)")
            // The code's status is the one table clients share (FarmWire).
            #expect(FarmErrorCode(rawValue: row.code)?.httpStatus == row.status, "\(label)")
            if row.code == "missingMedia" { #expect(Set((answer.json as? [String: Any])?["missing"] as? [String] ?? []) == [unknown], "\(label)") }
            if row.code == "invalidInput" {
                let problems = (answer.json as? [String: Any])?["problems"] as? [[String: Any]]
                #expect(problems?.contains { $0["path"] as? String == "files.a.mp4" } == true, "\(label)")
            }
        }
    }

    /// docs/api.md, "Uploading media": a file in parts, resumed where `HEAD` says; a part
    /// that does not start there is refused and changes nothing; a whole that does not
    /// hash to its content id is dropped.
    @Test func uploadsResumeByRangeAndHeadSaysWhere() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        let base = try start(farm)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: farm.path("a.mp4")))
        let id = try contentID(farm.path("a.mp4"))
        let url = "\(base)/media/\(id)"
        func head() throws -> (Int, String?) {
            let reply = try HTTPExchange.send("HEAD", url, headers: auth(Self.alice))
            return (reply.status, reply.headers["upload-offset"])
        }
        func part(_ range: Range<Int>, of data: Data) throws -> HTTPExchange {
            try HTTPExchange.send("PUT", url, headers: auth(Self.alice, ["Content-Range": "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(data.count)"]),
                                  body: data.subdata(in: range))
        }
        #expect(try head() == (404, "0"))
        let first = try part(0..<1000, of: bytes)
        #expect(first.status == 202)
        #expect(first.headers["upload-offset"] == "1000")
        #expect(try head() == (404, "1000"))
        let overlapping = try part(500..<1500, of: bytes)
        #expect(overlapping.status == 409)
        #expect(overlapping.headers["upload-offset"] == "1000")
        #expect(try head() == (404, "1000"))
        // The whole file is handed to the coordinator by path and moved, not written again:
        // the stored media are the very file the API wrote (docs/protocol.md, "Uploads").
        let hex = String(id.dropFirst("sha256:".count))
        let uploads = farm.stateDir.appendingPathComponent("api-uploads")
        let partial = try #require(FileManager.default.subpathsOfDirectory(atPath: uploads.path).first { $0.hasSuffix(hex + ".part") })
        let written = try #require(Self.inode(uploads.appendingPathComponent(partial).path))
        let rest = try part(1000..<bytes.count, of: bytes)
        #expect(rest.status == 201, "\(rest.text)")
        #expect(try head().0 == 200)
        #expect(Self.inode(farm.stateDir.appendingPathComponent("media/" + hex).path) == written)
        #expect(!FileManager.default.fileExists(atPath: uploads.appendingPathComponent(partial).path))
        // The colon percent-encoded, as encodeURIComponent and generated clients send it.
        let encoded = url.replacingOccurrences(of: "sha256:", with: "sha256%3A")
        #expect(try HTTPExchange.send("HEAD", encoded, headers: auth(Self.alice)).status == 200)
        #expect(try HTTPExchange.send("HEAD", url.uppercased().replacingOccurrences(of: "HTTP://", with: "http://")
                                          .replacingOccurrences(of: "/V1/MEDIA/", with: "/v1/media/"), headers: auth(Self.alice)).status == 400)
        let again = try HTTPExchange.send("PUT", url, headers: auth(Self.alice), body: bytes)
        #expect(again.status == 200)
        #expect((again.json as? [String: Any])?["present"] as? Bool == true)

        // Parts of the wrong bytes: kept while incomplete, dropped once whole and wrong.
        var forged = try Data(contentsOf: URL(fileURLWithPath: farm.path("b.mp4")))
        forged[0] ^= 0xFF
        let otherID = try contentID(farm.path("b.mp4"))
        let otherURL = "\(base)/media/\(otherID)"
        let half = forged.count / 2
        for range in [0..<half, half..<forged.count] {
            let reply = try HTTPExchange.send("PUT", otherURL,
                                              headers: auth(Self.alice, ["Content-Range": "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(forged.count)"]),
                                              body: forged.subdata(in: range))
            #expect(reply.status == (range.lowerBound == 0 ? 202 : 422), "\(reply.text)")
        }
        let afterForgery = try HTTPExchange.send("HEAD", otherURL, headers: auth(Self.alice))
        #expect(afterForgery.status == 404 && afterForgery.headers["upload-offset"] == "0")
        #expect(try HTTPExchange.send("PUT", "\(base)/media/sha256:nothex", headers: auth(Self.alice), body: Data()).status == 400)

        // An upload that declares more than the disk holds is refused before a byte is
        // read: by its Content-Range's total, and by a Content-Length with no body behind it.
        let huge = try HTTPExchange.send("PUT", otherURL, headers: auth(Self.alice, ["Content-Range": "bytes 0-99/99999999999999999"]),
                                         body: Data(count: 100))
        #expect(huge.status == 507, "\(huge.text)")
        let port = try #require(URLComponents(string: base)?.port)
        let python = try #require(ProcessRunner.which("python3"))
        let lied = try ProcessRunner.run(python, ["-c", """
            import socket, sys
            s = socket.create_connection(("127.0.0.1", \(port)), timeout=10)
            s.sendall(b"PUT /v1/media/\(otherID) HTTP/1.1\\r\\nHost: x\\r\\nAuthorization: Bearer \(Self.alice)\\r\\n"
                      b"Content-Length: 200000000000000\\r\\n\\r\\n")
            print(s.recv(100).decode(errors="replace").splitlines()[0])
            """], timeout: 30)
        #expect(lied.stdout.hasPrefix("HTTP/1.1 507"), "\(lied.stdout) \(lied.stderr)")
    }

    @Test func everyProblemIsA422WithItsJSONPath() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        let base = try start(farm)
        let id = try contentID(farm.path("a.mp4"))
        _ = try HTTPExchange.send("PUT", "\(base)/media/\(id)", headers: auth(Self.alice),
                                  body: try Data(contentsOf: URL(fileURLWithPath: farm.path("a.mp4"))))
        let bad: [String: Any] = ["session": ["video": ["videoSegments": [
            ["source": "a.mp4", "trimDuration": 40],
            ["source": "a.mp4", "speedMultiplier": -2],
        ]]], "files": ["a.mp4": id]]
        let reply = try HTTPExchange.send("POST", "\(base)/jobs", headers: auth(Self.alice, ["Content-Type": "application/json"]),
                                          body: try JSONSerialization.data(withJSONObject: bad))
        #expect(reply.status == 422, "\(reply.text)")
        let problems = ((reply.json as? [String: Any])?["problems"] as? [[String: String]]) ?? []
        let paths = Set(problems.compactMap { $0["path"] })
        #expect(paths.contains("video.videoSegments[0].trimDuration"), "\(problems)")
        #expect(paths.contains("video.videoSegments[1].speedMultiplier"), "\(problems)")
        #expect(problems.allSatisfy { !($0["message"] ?? "").isEmpty })

        let notJSON = try HTTPExchange.send("POST", "\(base)/jobs", headers: auth(Self.alice), body: Data("{".utf8))
        #expect(notJSON.status == 422)
        // What the parser found, not a guess: nesting past its depth, a number no double holds.
        func problem(_ body: String) throws -> String {
            let reply = try HTTPExchange.send("POST", "\(base)/jobs", headers: auth(Self.alice), body: Data(body.utf8))
            return ((reply.json as? [String: Any])?["problems"] as? [[String: String]])?.first?["message"] ?? reply.text
        }
        #expect(try problem(String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)).contains("nested"))
        #expect(try problem(#"{"priority": "# + String(repeating: "9", count: 401) + "}").contains("not representable"))
        #expect(try problem("[1, 2]").contains("not an object"))
        let badSetting = try HTTPExchange.send("POST", "\(base)/jobs", headers: auth(Self.alice),
                                               body: Data(#"{"session": {}, "settings": {"crf": 99}}"#.utf8))
        #expect(badSetting.status == 422)
        // The setting named by its key, in the API's terms (not the CLI's --crf).
        let settingProblem = ((badSetting.json as? [String: Any])?["problems"] as? [[String: String]])?.first
        #expect(settingProblem?["path"] == "settings.crf")
        #expect(settingProblem?["message"] == "99 is outside 0 … 51")
        // A boolean is not a priority (Foundation's bridged numbers would say 1 == true).
        let boolPriority = try HTTPExchange.send("POST", "\(base)/jobs", headers: auth(Self.alice),
                                                 body: Data(#"{"session": {}, "priority": true}"#.utf8))
        #expect(((boolPriority.json as? [String: Any])?["problems"] as? [[String: String]])?.first?["path"] == "priority")
    }

    /// Under CURVE the API reaches its coordinator with a key of its own (an admin key
    /// that lives as long as the process); the allow-list file is not touched.
    @Test func theAPIWorksOnACurveCoordinator() throws {
        let farm = try FarmFixture()
        for name in ["coordinator", "worker"] {
            #expect(try TestEnvironment.reel(["keygen", farm.path(name)]).status == 0)
        }
        let workerKey = try String(contentsOfFile: farm.path("worker.pub"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        try TestEnvironment.write("\(workerKey) worker\n", to: "authorized", in: farm.dir)
        try TestEnvironment.write("\(Self.admin) admin ops\n", to: "tokens", in: farm.dir)
        try farm.startCoordinator(["--curve-key", farm.path("coordinator.key"), "--authorized-keys", farm.path("authorized"),
                                   "--http", "127.0.0.1:0", "--api-tokens", "tokens"])
        try farm.startWorker("a", ["--curve-key", farm.path("worker.key"), "--server-key", farm.path("coordinator.pub")])
        let url = try farm.apiBase()
        #expect(try farm.waitUntil(30) {
            (try HTTPExchange.send("GET", "\(url)/workers", headers: auth(Self.admin)).json as? [Any])?.count == 1
        })
        #expect(try String(contentsOfFile: farm.path("authorized"), encoding: .utf8) == "\(workerKey) worker\n")
    }

    /// Uploads the fixture's media and runs its session to the end over HTTP; returns the
    /// job id and the content id of `a.mp4`.
    func finishedJob(_ farm: FarmFixture, base: String, token: String) throws -> (job: String, media: String) {
        let files = ["a.mp4": try contentID(farm.path("a.mp4")), "b.mp4": try contentID(farm.path("b.mp4"))]
        for (reference, id) in files {
            let put = try HTTPExchange.send("PUT", "\(base)/media/\(id)", headers: auth(token),
                                            body: try Data(contentsOf: URL(fileURLWithPath: farm.path(reference))))
            guard put.status == 201 || put.status == 200 else { throw Failure("upload: \(put.status) \(put.text)") }
        }
        let session = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: farm.path("s.json"))))
        let body = try JSONSerialization.data(withJSONObject: ["session": session, "files": files] as [String: Any])
        let created = try HTTPExchange.send("POST", "\(base)/jobs", headers: auth(token, ["Content-Type": "application/json"]), body: body)
        guard let job = ((created.json as? [String: Any])?["job"] as? [String: Any])?["jobID"] as? String else {
            throw Failure("submit: \(created.status) \(created.text)")
        }
        // The event stream ends when the job does.
        _ = try HTTPExchange.send("GET", "\(base)/jobs/\(job)/events", headers: auth(token))
        return (job, files["a.mp4"] ?? "")
    }

    /// Requests generated from docs/api.yaml by schemathesis (PyPI) with every check it has:
    /// no server error, statuses, bodies, headers and content types as the spec says,
    /// schema-valid requests accepted and invalid ones refused, auth enforced, and the
    /// links followed from created jobs and uploads. Tests/api/schemathesis.toml says
    /// what the schema cannot (a body must hash to its content id), and points the
    /// generated ids at a finished job, an uploaded file, a batch and a worker. Seeded and
    /// time-bounded.
    @Test func schemathesisPassesEveryCheck() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        let base = try start(farm)
        let schemathesis = try #require(ProcessRunner.which("schemathesis"), "make test-deps installs schemathesis")
        let (job, media) = try finishedJob(farm, base: base, token: Self.admin)
        // A batch of one variant, the same session: for GET /v1/batches/{id}.
        let files = ["a.mp4": try contentID(farm.path("a.mp4")), "b.mp4": try contentID(farm.path("b.mp4"))]
        let session = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: farm.path("s.json"))))
        let batchBody = try JSONSerialization.data(withJSONObject: ["session": session, "files": files,
                                                                    "variants": [["name": "same", "replace": [String: String]()]]] as [String: Any])
        let created = try HTTPExchange.send("POST", "\(base)/batches", headers: auth(Self.admin, ["Content-Type": "application/json"]), body: batchBody)
        let batch = try #require(((created.json as? [String: Any])?["batch"] as? [String: Any])?["batchID"] as? String, "\(created.text)")
        let listed = try HTTPExchange.send("GET", "\(base)/workers", headers: auth(Self.admin))
        let worker = try #require((listed.json as? [[String: Any]])?.first?["workerID"] as? String, "\(listed.text)")
        let root = TestEnvironment.packageRoot
        // One worker: CPython 3.11 can fail compiling in two threads at once ("AST constructor
        // recursion depth mismatch"), a crash of the tool that says nothing about the server.
        let result = try ProcessRunner.run(schemathesis, [
            "--config-file", root.appendingPathComponent("Tests/api/schemathesis.toml").path,
            "run", root.appendingPathComponent("docs/api.yaml").path,
            "--url", String(base.dropLast("/v1".count)), "--header", "Authorization: Bearer \(Self.admin)",
            "--checks", "all", "--max-time", "60", "--seed", "20261125", "--workers", "1",
        ], directory: farm.dir, environment: ProcessInfo.processInfo.environment.merging(["REEL_JOB": job, "REEL_MEDIA": media, "REEL_BATCH": batch,
                                                                                                             "REEL_WORKER": worker]) { $1 },
           timeout: 300)
        #expect(result.status == 0, "\(result.stdout.suffix(4000))")
        #expect(result.stdout.contains("passed") && !result.stdout.contains("failures"), "\(result.stdout.suffix(4000))")
        // The finished job and the uploaded file were reached, not only 404s.
        #expect(!result.stdout.contains("Missing test data"), "\(result.stdout.suffix(3000))")
    }

    /// A client generated from docs/api.yaml by openapi-python-client (PyPI), with no code
    /// of ours in it, uploads the media, submits the session, waits and downloads the MP4:
    /// the bytes `reel render` makes. The generator must take the spec without a warning.
    @Test func aGeneratedClientUploadsSubmitsAndDownloads() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        let base = try start(farm)
        let python = try #require(ProcessRunner.which("python3"))
        #expect(ProcessRunner.which("openapi-python-client") != nil, "make test-deps installs openapi-python-client")
        let script = TestEnvironment.packageRoot.appendingPathComponent("Tests/api/generated-client-check.py").path
        let result = try ProcessRunner.run(python, [script, base, Self.alice, farm.path("s.json"), farm.path("client.mp4")],
                                           directory: farm.dir, environment: ProcessInfo.processInfo.environment, timeout: 240)
        #expect(result.status == 0, "\(result.stdout.suffix(1000)) \(result.stderr.suffix(2000))")
        let downloaded = try Data(contentsOf: URL(fileURLWithPath: farm.path("client.mp4")))
        #expect(downloaded == (try farm.reference()), "the generated client downloaded \(downloaded.count) bytes")
    }

    /// The HTTP side is part of the process's health: an API server that stops by itself
    /// (here, a test hook cancels its task, as the crash that left a coordinator
    /// half-dead did) ends the process non-zero, so its orchestrator restarts it; started
    /// again on its state, it serves.
    @Test func aStoppedAPIEndsTheProcessForARestart() throws {
        let farm = try FarmFixture()
        try farm.startCoordinator(["--http", "127.0.0.1:0", "--test-stop-http-after", "1"])
        let process = try #require(farm.coordinator)
        #expect(try farm.waitUntil(30) { !process.isRunning }, "the coordinator kept running without its API")
        #expect(process.terminationStatus != 0)
        #expect(farm.log("coordinator.log").contains("the HTTP API stopped while the process was running"),
                "\(farm.log("coordinator.log").suffix(600))")
        try farm.startCoordinator(["--http", "127.0.0.1:0"])   // a new log: the old one is read above
        #expect(try HTTPExchange.send("GET", "\(try farm.apiBase())/workers").status == 200)
    }

    /// A content id confirms nothing to a client that has not sent its bytes: `HEAD` says
    /// 404, a job naming it is missing it, a `PUT` must send the bytes (checked) — then it
    /// is that client's too. An admin holds everything.
    @Test func anotherClientsMediaIsNotConfirmedByItsContentID() throws {
        let farm = try FarmFixture()
        try farm.makeSession(seconds: 1)
        let base = try start(farm)
        let files = try farm.uploadMedia(to: base, token: Self.alice)
        let id = try #require(files["a.mp4"])
        #expect(try HTTPExchange.send("HEAD", "\(base)/media/\(id)", headers: auth(Self.alice)).status == 200)
        let guessed = try HTTPExchange.send("HEAD", "\(base)/media/\(id)", headers: auth(Self.bob))
        #expect(guessed.status == 404 && guessed.headers["upload-offset"] == "0")
        #expect(try HTTPExchange.send("HEAD", "\(base)/media/\(id)", headers: auth(Self.admin)).status == 200)
        let session = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: farm.path("s.json"))))
        let body = try JSONSerialization.data(withJSONObject: ["session": session, "files": files])
        let borrowed = try HTTPExchange.send("POST", "\(base)/jobs", headers: auth(Self.bob), body: body)
        #expect(borrowed.status == 409, "\(borrowed.text)")
        #expect(Set((borrowed.json as? [String: Any])?["missing"] as? [String] ?? []) == Set(files.values))
        let wrong = try HTTPExchange.send("PUT", "\(base)/media/\(id)", headers: auth(Self.bob), body: Data("not the clip".utf8))
        #expect(wrong.status == 422)
        _ = try farm.uploadMedia(to: base, token: Self.bob)   // the bytes, once: answered 200, stored once
        #expect(try HTTPExchange.send("HEAD", "\(base)/media/\(id)", headers: auth(Self.bob)).status == 200)
        #expect(try HTTPExchange.send("POST", "\(base)/jobs", headers: auth(Self.bob), body: body).status == 201)
    }

    @Test func aNonLoopbackAPIWithoutTokensIsRefused() throws {
        let dir = try TestEnvironment.scratchDirectory()
        let result = try TestEnvironment.reel(["coordinator", "--state-dir", dir.appendingPathComponent("s").path,
                                               "--http", "0.0.0.0:8080"])
        #expect(result.status == 2)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.contains("--http 0.0.0.0:8080 is not a loopback address: give --api-tokens"))
    }

    /// The inode number of a file, or nil when there is none.
    static func inode(_ path: String) -> UInt64? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }
}
