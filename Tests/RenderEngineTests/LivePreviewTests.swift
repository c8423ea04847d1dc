import Foundation
import ReelTestSupport
import SessionKit
import Testing
@testable import RenderEngine

/// docs/rendering.md, "Live preview": the finished prefix of an export as HLS fMP4
/// segments, one per video chunk, published in output order only; the segments played by
/// ffmpeg are the final MP4's packets, frame for frame and audio packet for packet.
@Suite struct LivePreviewTests {
    /// The preview's files cut as a player fetches them (init.mp4, N.m4s) and its playlist.
    static func writePlaylist(of directory: URL) throws -> String {
        let index = try #require(try LivePreview.Index.read(in: directory.path))
        let media = try Data(contentsOf: directory.appendingPathComponent(LivePreview.Index.mediaFileName))
        try media.prefix(Int(index.initLength)).write(to: directory.appendingPathComponent("init.mp4"))
        for (number, segment) in index.segments.enumerated() {
            try media[Int(segment.offset)..<Int(segment.offset + segment.length)]
                .write(to: directory.appendingPathComponent("\(number).m4s"))
        }
        let playlist = directory.appendingPathComponent("preview.m3u8")
        try PreviewPlaylist.text(of: index) { $0.map { "\($0).m4s" } ?? "init.mp4" }.write(to: playlist, atomically: true, encoding: .utf8)
        return playlist.path
    }

    /// Each packet's checksum of one stream (`v` or `a`), copied as it is: the same list
    /// means the same packets in the same order.
    static func packetHashes(_ path: String, stream: String) throws -> [String] {
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        let run = try ProcessRunner.run(ffmpeg, ["-v", "error", "-i", path, "-map", "0:\(stream)", "-c", "copy", "-f", "framemd5", "-"])
        #expect(run.status == 0, "\(run.stderr)")
        return hashColumn(run.stdout)
    }

    /// framemd5's checksum column (the sixth; side data may follow it).
    static func hashColumn(_ text: String) -> [String] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let fields = line.split(separator: ",")
            return fields.count > 5 ? fields[5].trimmingCharacters(in: .whitespaces) : nil
        }
    }

    /// Each decoded picture's checksum.
    static func pictureHashes(_ path: String) throws -> [String] {
        let ffmpeg = try #require(ProcessRunner.which("ffmpeg"))
        // A playlist still growing is read from its first segment, and given up once a reload
        // brings nothing new (the demuxer starts 3 from the end and waits for more; 1 fails in FFmpeg 5.1).
        let live = path.hasSuffix(".m3u8") ? ["-live_start_index", "0", "-m3u8_hold_counters", "2"] : []
        let run = try ProcessRunner.run(ffmpeg, ["-v", "error"] + live + ["-i", path, "-map", "0:v", "-f", "framemd5", "-"])
        #expect(run.status == 0, "\(run.stderr)")
        return hashColumn(run.stdout)
    }

    /// A rendered job's chunks, its output assembled at once, and a second assembly begun
    /// with the preview riding along (fed from the assembly's reads).
    struct Prepared {
        var spec: JobSpec
        var file: JobSpec.OutputFile
        var chunkPath: (Int) -> String
        var output: String
        var previewDirectory: URL
        var assembly: Assembly
        var preview: LivePreview
    }

    static func prepared(_ name: String) throws -> Prepared {
        let dir = try TestEnvironment.scratchDirectory(name)
        let (spec, chunkPath) = try AssemblyTests.renderedJob(shardKeyframeIntervals: 2, in: dir)
        let file = try #require(spec.outputFiles.first)
        let output = dir.appendingPathComponent("output.mp4").path
        try spec.assemble(to: output, chunkPath: chunkPath)
        let previewDirectory = dir.appendingPathComponent("preview")
        let assembly = try spec.beginAssembly(of: file, to: dir.appendingPathComponent("riding.mp4").path, chunkPath: chunkPath)
        let preview = try spec.beginPreview(of: file, in: previewDirectory.path, riding: assembly)
        return Prepared(spec: spec, file: file, chunkPath: chunkPath, output: output, previewDirectory: previewDirectory,
                        assembly: assembly, preview: preview)
    }

    @Test func segmentsArePublishedInOrderAndPlayAsTheOutput() throws {
        let job = try Self.prepared("live-preview")
        let (spec, file, chunkPath, output, previewDirectory, preview) = (job.spec, job.file, job.chunkPath, job.output, job.previewDirectory, job.preview)
        let assembly = job.assembly
        #expect(preview.index.segments.isEmpty && !preview.index.ended)
        // Chunks arrive out of order: the audio pieces, then the video with every third
        // chunk late; a segment is never listed past a gap.
        let video = file.videoTasks
        #expect(video.count > 10)
        let late = video.enumerated().filter { $0.offset % 3 == 1 }.map(\.element)
        let order = file.audioTasks + video.filter { !late.contains($0) } + late
        var present: Set<String> = []
        var listed: [Int] = []
        for task in order {
            present.insert(chunkPath(task))
            _ = try assembly.advance { present.contains($0) }
            // Up to the first gap; the last segment also waits for the sound's end.
            let prefix = video.prefix { present.contains(chunkPath($0)) }.count
            #expect(preview.index.segments.count == prefix, "a segment listed past a gap, or one missing")
            listed.append(preview.index.segments.count)
            // What a reader finds on disk is what was published.
            #expect(try LivePreview.Index.read(in: previewDirectory.path) == preview.index)
        }
        #expect(listed.contains { $0 > 0 && $0 < video.count }, "never half published: \(listed)")

        // Each chunk was read once, by the assembly; the preview read none.
        #expect(assembly.chunkFilesOpened == file.videoTasks.count + file.audioTasks.count)
        try assembly.finish()
        try preview.finish()
        #expect(preview.index.ended && preview.index.segments.count == video.count)
        #expect(preview.index.segments.map(\.frames).reduce(0, +) == spec.output.frames)
        let playlist = try Self.writePlaylist(of: previewDirectory)
        let text = try String(contentsOfFile: playlist, encoding: .utf8)
        #expect(text.hasSuffix("#EXT-X-ENDLIST\n"))
        // The same packets, in the same order, as the final MP4's.
        #expect(try Self.packetHashes(playlist, stream: "v") == Self.packetHashes(output, stream: "v"))
        #expect(try Self.packetHashes(playlist, stream: "a") == Self.packetHashes(output, stream: "a"))
        let pictures = try Self.pictureHashes(playlist)
        #expect(Int64(pictures.count) == spec.output.frames)
        #expect(pictures == (try Self.pictureHashes(output)))
    }

    @Test func aPlaylistOfHalfTheChunksPlaysTheOutputsFirstFrames() throws {
        let job = try Self.prepared("live-preview-half")
        let (spec, file, chunkPath, output, previewDirectory, preview) = (job.spec, job.file, job.chunkPath, job.output, job.previewDirectory, job.preview)
        let half = Array(file.videoTasks.prefix(file.videoTasks.count / 2))
        let present = Set((file.audioTasks + half).map(chunkPath))
        _ = try job.assembly.advance { present.contains($0) }
        #expect(preview.index.segments.count == half.count && !preview.index.ended)
        let playlist = try Self.writePlaylist(of: previewDirectory)
        #expect(!(try String(contentsOfFile: playlist, encoding: .utf8)).contains("ENDLIST"))
        let frames = half.reduce(Int64(0)) { $0 + spec.tasks[$1].frameCount }
        let pictures = try Self.pictureHashes(playlist)
        #expect(Int64(pictures.count) == frames)
        #expect(pictures == Array(try Self.pictureHashes(output).prefix(Int(frames))))
    }

    @Test func thePlaylistFollowsRFC8216() {
        var index = LivePreview.Index(targetSeconds: 2)
        #expect(!PreviewPlaylist.text(of: index) { _ in "x" }.contains("EXT-X-MAP"))
        index.initLength = 900
        index.segments = [.init(offset: 900, length: 10, firstFrame: 0, frames: 60, seconds: 2),
                          .init(offset: 910, length: 10, firstFrame: 60, frames: 45, seconds: 1.5)]
        index.ended = true
        let text = PreviewPlaylist.text(of: index) { $0.map { "s/\($0).m4s" } ?? "s/init.mp4" }
        #expect(text == """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:2
            #EXT-X-PLAYLIST-TYPE:EVENT
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-MAP:URI="s/init.mp4"
            #EXTINF:2.000000,
            s/0.m4s
            #EXTINF:1.500000,
            s/1.m4s
            #EXT-X-ENDLIST

            """)
    }
}
