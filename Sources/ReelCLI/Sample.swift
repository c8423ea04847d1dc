import ArgumentParser
import RenderEngine

extension SampleMedia.Pattern: ExpressibleByArgument {}

struct Sample: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write synthetic test media: a moving pattern and a tone, H.264 + AAC.")

    @Argument(help: "Output file: .mp4 or .mov for video, .jpg or .heic for one still frame.")
    var output: String

    @Option(help: "Length in seconds.")
    var duration: Double = 3

    @Option(help: ArgumentHelp("Coded picture size.", valueName: "WxH"))
    var size: String = "640x360"

    @Option(help: "Frames per second (integer).")
    var fps: Int = 30

    @Option(help: "Clockwise display rotation, like a phone's portrait clip or photo (a display matrix; irot/imir in .heic): 0, 90, 180 or 270.")
    var rotate: Int = 0

    @Flag(help: "Write no audio track.")
    var noAudio = false

    @Option(help: "Tone frequency in Hz.")
    var tone: Double = 440

    @Option(help: "Picture: moving, frame-index (a flat colour per frame), quadrants or gradient.")
    var pattern: SampleMedia.Pattern = .moving

    func validate() throws {
        guard let (w, h) = parseSize(size) else { throw ValidationError("--size: '\(size)' is not WxH, for example 640x360") }
        guard w % 2 == 0, h % 2 == 0, (16...7680).contains(w), (16...4320).contains(h) else {
            throw ValidationError("--size: \(w)x\(h) must be even numbers from 16x16 to 7680x4320")
        }
        guard [0, 90, 180, 270].contains(rotate) else { throw ValidationError("--rotate: \(rotate) is not 0, 90, 180 or 270") }
        guard duration > 0, duration <= 3600 else { throw ValidationError("--duration: \(duration) is outside 0 … 3600 s") }
        guard (1...240).contains(fps) else { throw ValidationError("--fps: \(fps) is outside 1 … 240") }
        guard tone > 0, tone < 24000 else { throw ValidationError("--tone: \(tone) Hz is outside 0 … 24000") }
    }

    func run() throws {
        guard let (width, height) = parseSize(size) else { throw Reported(code: ExitStatus.invalidInput) }
        var sample = SampleMedia()
        sample.duration = duration
        sample.width = width
        sample.height = height
        sample.framesPerSecond = fps
        sample.rotation = rotate
        sample.audio = !noAudio
        sample.toneFrequency = tone
        sample.pattern = pattern
        do {
            try sample.write(to: output)
        } catch {
            printError("error: \(error)")
            throw Reported(code: ExitStatus.failure)
        }
    }
}

/// `640x360` → (640, 360).
func parseSize(_ text: String) -> (Int, Int)? {
    let parts = text.lowercased().split(separator: "x")
    guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { return nil }
    return (w, h)
}
