import Foundation
import SessionKit

/// The files a compiled job writes from its chunks (docs/rendering.md, "Pipeline"): one
/// MP4 of the whole timeline, or one per segment in a directory, each with its sidecar.
extension JobSpec {
    /// One file of the job: which tasks' chunks it joins.
    public struct OutputFile: Sendable, Hashable {
        /// The segment it holds alone, for a per-segment export.
        public var segment: Int?
        /// Where its first frame is on the job's timeline, and how many frames it has.
        public var startFrame: Int64
        public var frames: Int64
        public var videoTasks: [Int]
        /// The pieces of its audio track, in order.
        public var audioTasks: [Int]
    }

    /// The name of segment `index`'s file in a per-segment export (index as in
    /// `video.videoSegments[index]`).
    public static func segmentFileName(_ index: Int) -> String { String(format: "segment-%03d.mp4", index) }

    public var outputFiles: [OutputFile] {
        let video = tasks.indices.filter { tasks[$0].kind == .video }
        switch layout {
        case .whole:
            return [OutputFile(segment: nil, startFrame: 0, frames: output.frames, videoTasks: video,
                               audioTasks: tasks.indices.filter { tasks[$0].kind == .audio })]
        case .segments:
            return segments.map { segment in
                OutputFile(segment: segment.index, startFrame: segment.outputStartFrame, frames: segment.frameCount,
                           videoTasks: video.filter { tasks[$0].segment == segment.index },
                           audioTasks: tasks.indices.filter { tasks[$0].kind == .segmentAudio && tasks[$0].segment == segment.index })
            }
        }
    }

    /// The output's metadata: the creation date, and the first segment's location else the session's.
    public var creationDate: Date? { session.dateCreated }
    public var location: Location? { segments.lazy.compactMap(\.location).first ?? session.location }

    /// Writes the job's files from its chunks (`chunkPath(task)`): `output` itself for a
    /// whole job; for a per-segment job `output` is a directory that receives
    /// `segment-NNN.mp4` and its sidecar for every segment. All or nothing: the files are
    /// written aside and put in place only when every one is complete.
    public func assemble(to output: String, chunkPath: (Int) -> String) throws {
        switch layout {
        case .whole:
            guard let file = outputFiles.first else { throw EngineError("nothing to assemble") }
            try write(file, to: output, chunkPath: chunkPath)
        case .segments:
            let directory = URL(fileURLWithPath: output)
            let staging = directory.appendingPathComponent(".reel-assembly-\(UInt32.random(in: 0...UInt32.max))")
            do {
                try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
            } catch {
                throw EngineError("cannot create \(directory.path): \((error as NSError).localizedDescription)")
            }
            defer { try? FileManager.default.removeItem(at: staging) }
            var written: [String] = []
            for file in outputFiles {
                let name = Self.segmentFileName(file.segment ?? 0)
                try write(file, to: staging.appendingPathComponent(name).path, chunkPath: chunkPath)
                written.append(name)
            }
            for name in written {
                for part in [name, URL(fileURLWithPath: Sidecar.path(for: name)).lastPathComponent] {
                    guard rename(staging.appendingPathComponent(part).path, directory.appendingPathComponent(part).path) == 0 else {
                        throw EngineError("cannot move \(part) into \(directory.path): \(String(cString: strerror(errno)))")
                    }
                }
            }
        }
    }

    private func write(_ file: OutputFile, to path: String, chunkPath: (Int) -> String) throws {
        try beginAssembly(of: file, to: path, chunkPath: chunkPath).writeAll()
        try writeSidecar(of: file, beside: path)
    }

    /// The assembly of one of the job's files, to advance as its chunks arrive
    /// (docs/rendering.md, "Assembly"); its sidecar is written by `writeSidecar` once it is finished.
    public func beginAssembly(of file: OutputFile, to path: String, chunkPath: (Int) -> String) throws -> Assembly {
        let samples = AudioPieces.sample(ofFrame: file.frames, frameDuration: output.frameDuration)
        return try Assembly(Assembler(frameDuration: output.frameDuration, creationDate: creationDate, location: location),
                            video: videoChunks(of: file, chunkPath: chunkPath), audio: file.audioTasks.map(chunkPath),
                            audioSamples: samples, to: path)
    }

    /// A file's video chunks in output order, each placed on the file's own timeline.
    private func videoChunks(of file: OutputFile, chunkPath: (Int) -> String) -> [Assembler.VideoChunk] {
        file.videoTasks.map { index in
            Assembler.VideoChunk(path: chunkPath(index), outputStartFrame: tasks[index].outputStartFrame - file.startFrame,
                                 frameCount: tasks[index].frameCount)
        }
    }

    /// The live preview of one of the job's files, in `directory`, fed by `assembly` as it
    /// reads the file's chunks (docs/rendering.md, "Live preview"): one chunk list, one read.
    public func beginPreview(of file: OutputFile, in directory: String, riding assembly: Assembly) throws -> LivePreview {
        let preview = try LivePreview(frameDuration: output.frameDuration, video: assembly.chunks,
                                      hasAudio: !file.audioTasks.isEmpty, directory: directory)
        assembly.preview = preview
        return preview
    }

    /// Writes the sidecar of a finished file; on failure removes the file too.
    public func writeSidecar(of file: OutputFile, beside path: String) throws {
        let sidecarPath = Sidecar.path(for: path)
        do {
            try sidecar(for: file).encoded().write(to: URL(fileURLWithPath: sidecarPath), options: .atomic)
        } catch {
            unlink(path)
            throw EngineError("cannot write the sidecar \(sidecarPath): \((error as NSError).localizedDescription)")
        }
    }

    /// The sidecar of one of the job's files.
    public func sidecar(for file: OutputFile) -> Sidecar {
        Sidecar(formatIdentifier: session.formatIdentifier, formatVersion: session.formatVersion,
                engineVersion: EngineVersion.engine, encoder: settings, sources: contentIDs.redactingURLKeys(),
                output: Sidecar.Output(width: output.width, height: output.height,
                                       frameDuration: SessionTime(output.frameDuration), frames: file.frames),
                session: session.redactingURLs(), segment: file.segment,   // a URL's query is a credential
                colour: files.compactMapValues { $0.hdr?.conversion }.redactingURLKeys().nilIfEmpty,
                geometry: files.compactMapValues(\.geometry).redactingURLKeys().nilIfEmpty)
    }
}

extension Dictionary {
    var nilIfEmpty: Self? { isEmpty ? nil : self }
}

extension Dictionary where Key == String {
    /// Keys that are URLs, redacted.
    func redactingURLKeys() -> Self {
        Dictionary(map { (MediaURL.redact($0.key), $0.value) }) { first, _ in first }
    }
}
