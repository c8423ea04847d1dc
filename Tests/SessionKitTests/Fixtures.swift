@testable import SessionKit

/// Probes as the engine would report them, so the model is tested without files.
enum Fixtures {
    static func media(seconds: Int64 = 10, fps: Int64 = 30, width: Int = 1920, height: Int = 1080,
                      transform: SessionTransform? = nil, audio: Bool = true) -> MediaInfo {
        MediaInfo(duration: Rational(Int(seconds)), frameDuration: Rational(1, fps), codedWidth: width,
                  codedHeight: height, displayTransform: transform, hasAudio: audio)
    }

    static func time(_ seconds: Double) -> SessionTime { SessionTime(seconds: seconds)! }

    static func session(_ segments: [SessionVideoSegment], renderSize: Size? = nil, speed: Double? = nil,
                        frameDuration: SessionTime? = nil) -> Session {
        Session(video: SessionVideo(videoSegments: segments, renderSize: renderSize, speedMultiplier: speed,
                                    frameDuration: frameDuration))
    }
}
