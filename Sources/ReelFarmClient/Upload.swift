import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ReelFarm {
    /// Uploads a file by its content id (docs/api.md, "Uploading media") and returns the id:
    /// nothing is sent if the farm has it for this client; an upload it holds in part goes on
    /// from where it stands; a dropped connection is resumed from the farm's `Upload-Offset`,
    /// so only the bytes it lacks are sent again (at most one part, `uploadPartBytes`, is
    /// sent twice).
    public func upload(_ file: URL) async throws -> String {
        let contentID: String
        let size: Int
        do {
            contentID = try SHA256.contentID(of: file)
            size = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue ?? 0
        } catch {
            throw ReelFarmError.file(path: file.path, reason: "\(error)")
        }
        guard let handle = FileHandle(forReadingAtPath: file.path) else {
            throw ReelFarmError.file(path: file.path, reason: "cannot be read")
        }
        defer { try? handle.close() }   // read-only
        var failures = 0
        var offset: Int? = nil   // where the farm's copy stands, once asked
        while true {
            do {
                let at: Int
                if let offset { at = offset } else {
                    guard let standing = try await uploadOffset(contentID) else { return contentID }   // the farm has it
                    at = standing
                }
                if size == 0 || at >= size {
                    offset = try await sendPart(contentID, handle: handle, from: 0, size: size)   // whole (an empty file)
                } else {
                    offset = try await sendPart(contentID, handle: handle, from: at, size: size)
                }
                if offset == nil { return contentID }
            } catch let error as ReelFarmError {
                throw error
            } catch {
                // The connection dropped: ask where the farm's copy stands and go on from there.
                failures += 1
                guard failures <= retries else { throw error }
                offset = nil
            }
        }
    }

    /// Where the farm's copy of `contentID` stands for this client: nil if it has the whole
    /// file, else the offset of the next byte it wants.
    func uploadOffset(_ contentID: String) async throws -> Int? {
        let (data, status, response) = try await exchange(try makeRequest("HEAD", "media/\(contentID)"))
        switch status {
        case 200: return nil
        case 404: return response?.value(forHTTPHeaderField: "Upload-Offset").flatMap(Int.init) ?? 0
        default: throw ReelFarmError.from(status: status, body: data)
        }
    }

    /// Sends the part at `start` (all of a file no larger than a part); returns where the
    /// upload stands after it, or nil when the farm has the whole file.
    private func sendPart(_ contentID: String, handle: FileHandle, from start: Int, size: Int) async throws -> Int? {
        let length = min(uploadPartBytes, size - start)
        // A connection of its own per part: libcurl (URLSession on Linux) retries a request whose
        // reused connection died, and cannot send its body again, so a dropped part would
        // hang until the time-out instead of being resumed at once.
        var headers = ["Content-Type": "application/octet-stream", "Connection": "close"]
        let body: Data
        do {
            try handle.seek(toOffset: UInt64(start))
            body = try handle.read(upToCount: length) ?? Data()
        } catch {
            throw ReelFarmError.file(path: "\(contentID)", reason: "\(error)")
        }
        if size > uploadPartBytes || start > 0 {
            headers["Content-Range"] = "bytes \(start)-\(start + body.count - 1)/\(size)"
        }
        let (data, status, response) = try await exchange(try makeRequest("PUT", "media/\(contentID)", body: body, headers: headers))
        switch status {
        case 200, 201: return nil
        case 202, 409:
            // A part taken, or one out of place: the farm says where it stands.
            guard let next = response?.value(forHTTPHeaderField: "Upload-Offset").flatMap(Int.init) else {
                throw ReelFarmError.from(status: status, body: data)
            }
            if status == 409, next == start { throw ReelFarmError.from(status: status, body: data) }   // would loop
            return next
        default:
            throw ReelFarmError.from(status: status, body: data)
        }
    }
}
