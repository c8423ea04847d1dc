import CFFmpeg

/// Recently decoded source frames, by clip and presentation timestamp, within a budget
/// of bytes (docs/rendering.md, "Pictures at a time"): the same frame asked for again at
/// another size or with another filter (an app moving a filter's slider) is not decoded
/// again. Least recently used first out. One thread owns it.
final class DecodedFrames {
    private struct Entry {
        let key: String
        let pts: Int64
        let frame: Frame
        let bytes: Int
    }

    let budget: Int
    private var entries: [Entry] = []   // least recently used first
    private(set) var bytes = 0
    /// Frames the clips decoded (tests, benchmark).
    var framesDecoded = 0

    init(budget: Int) { self.budget = budget }

    func frame(_ key: String, _ pts: Int64) -> Frame? {
        guard let i = entries.firstIndex(where: { $0.key == key && $0.pts == pts }) else { return nil }
        let entry = entries.remove(at: i)
        entries.append(entry)
        return entry.frame
    }

    func keep(_ frame: Frame, _ key: String, _ pts: Int64) {
        guard self.frame(key, pts) == nil else { return }
        let size = Self.size(of: frame)
        guard size <= budget else { return }
        entries.append(Entry(key: key, pts: pts, frame: frame, bytes: size))
        bytes += size
        while bytes > budget, let oldest = entries.first {
            bytes -= oldest.bytes
            entries.removeFirst()
        }
    }

    /// Drops a clip's frames (the clip was closed or changed).
    func forget(_ key: String) {
        entries.removeAll { $0.key == key }
        bytes = entries.reduce(0) { $0 + $1.bytes }
    }

    private static func size(of frame: Frame) -> Int {
        let f = frame.pointer.pointee
        return [f.buf.0, f.buf.1, f.buf.2, f.buf.3].reduce(0) { $0 + Int($1?.pointee.size ?? 0) }
    }
}
