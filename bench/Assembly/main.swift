import Foundation
import RenderEngine
import SessionKit

// bench/assembly's timing (docs/benchmarks.md, "Assembly"): the final MP4 of COUNT copies
// of one video chunk (FRAMES frames at 30 fps each) and one audio track, written as the
// chunks arrive one by one, as the coordinator's assembly lane does. Prints the seconds
// spent writing while the chunks arrive, the seconds from the last chunk to the file in
// place, and the chunk bytes a second.
//
//   assembly-bench CHUNK.mp4 FRAMES COUNT AUDIO.m4a OUT.mp4
let arguments = CommandLine.arguments
guard arguments.count == 6, let frames = Int64(arguments[2]), let count = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: assembly-bench CHUNK.mp4 FRAMES COUNT AUDIO.m4a OUT.mp4\n".utf8))
    exit(2)
}
let (chunk, audio, output) = (arguments[1], arguments[4], arguments[5])
let chunkBytes = (try FileManager.default.attributesOfItem(atPath: chunk)[.size] as? NSNumber)?.int64Value ?? 0
let chunks = (0..<count).map { Assembler.VideoChunk(path: chunk, outputStartFrame: Int64($0) * frames, frameCount: frames) }
let assembler = Assembler(frameDuration: Rational(1, 30)!, creationDate: nil, location: nil)
let samples = AudioPieces.sample(ofFrame: frames * Int64(count), frameDuration: Rational(1, 30)!)
do {
    let assembly = try Assembly(assembler, video: chunks, audio: [audio], audioSamples: samples, to: output)
    // Chunks "arrive" one at a time: after the n-th, n copies may be opened in all.
    var arrived = 0, opened = 0
    var writing = 0.0
    for _ in 0..<count {
        arrived += 1
        let started = Date()
        _ = try assembly.advance { path in
            if path == audio { return true }
            guard opened < arrived else { return false }
            opened += 1
            return true
        }
        writing += Date().timeIntervalSince(started)
    }
    let last = Date()
    try assembly.finish()
    let finishing = Date().timeIntervalSince(last)
    let total = Double(chunkBytes) * Double(count)
    print(String(format: "chunks %.3f GB; writing while they arrive %.3f s (%.2f GB/s); last chunk to the file in place %.3f s",
                 total / 1e9, writing, total / 1e9 / writing, finishing))
} catch {
    FileHandle.standardError.write(Data("assembly-bench: \(error)\n".utf8))
    exit(1)
}
