import RenderEngine
import SessionKit

/// Compiled jobs of video tasks only, for the scheduler's bookkeeping: the scheduler reads
/// a spec's tasks and files, never its segments.
enum SpecFixtures {
    static func job(tasks: [ShardTask], files: [String: String] = [:]) -> JobSpec {
        JobSpec(output: RenderFormat(width: 16, height: 16, frameDuration: Rational(1, 30)!, frames: tasks.reduce(0) { $0 + $1.frameCount }),
                settings: EncoderSettings(), segments: [], tasks: tasks,
                files: files.mapValues { SpecFile(contentID: $0, size: 0) },
                session: Session(video: SessionVideo(videoSegments: [SessionVideoSegment(source: "a")])))
    }
}

extension SpecFixtures {
    /// A real compiled job of a 2 s 64×36 clip with a crop and a filter: its shards carry
    /// a whole segment on the wire.
    static func clipJob() throws -> JobSpec {
        let segment = SessionVideoSegment(source: "a.mp4", cropRect: Rect(x: 0, y: 0, width: 32, height: 18),
                                          filters: [SessionFilter(type: "brightness", normalizedIntensity: 0.8)])
        let session = Session(video: SessionVideo(videoSegments: [segment]))
        let info = MediaInfo(duration: Rational(2), frameDuration: Rational(1, 30)!, codedWidth: 64, codedHeight: 36, hasAudio: true)
        let timeline = try Timeline(session: session, media: ["a.mp4": info])
        let plan = Plan(timeline: timeline, keyframeIntervalSeconds: Rational(1, 2)!)
        return JobSpec(output: RenderFormat(width: timeline.renderWidth, height: timeline.renderHeight,
                                            frameDuration: timeline.frameDuration, frames: timeline.totalFrames),
                       settings: EncoderSettings(), segments: timeline.segments, tasks: plan.tasks,
                       files: ["a.mp4": SpecFile(contentID: "sha256:" + String(repeating: "0", count: 64), size: 1000)],
                       session: session)
    }
}
