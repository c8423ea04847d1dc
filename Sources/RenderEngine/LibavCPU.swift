import CFFmpeg
import Foundation

/// libav picks DSP routines by CPU feature when a context is created, and some float
/// paths (AAC, atempo) and scaler paths round differently from one to another. Every such
/// context (scaler, encoder, filter graph, the opening of a decoder) is created with the
/// flags pinned to the x86-64 baseline, one at a time, so that every worker makes the
/// same bytes on any processor (docs/rendering.md, "Decisions and departures"). Between those moments
/// the flags are the processor's own: H.264 and HEVC decoders, which set up their
/// routines at the first picture (on each frame thread) and are bit-exact by their
/// standards, run with all of its SIMD (HEVC decodes 2.7x as fast as on the baseline).
///
/// A video decoder is "setting up" from its first packet until its first frame: no pin
/// starts meanwhile, and none is held when one starts, so a decoder never takes the
/// baseline's routines for good because another thread was opening an encoder at that
/// moment (a 4K HLG shard beside its audio piece took 12.1 s instead of 9, `reel render`).
public enum LibavCPU {
    private static let condition = NSCondition()
    nonisolated(unsafe) private static var pinned = false      // guarded by `condition`
    nonisolated(unsafe) private static var settingUp = 0       // guarded by `condition`

    #if arch(x86_64)
    private static let baseline = AV_CPU_FLAG_MMX | AV_CPU_FLAG_MMXEXT | AV_CPU_FLAG_SSE | AV_CPU_FLAG_SSE2 | AV_CPU_FLAG_CMOV
    #else
    private static let baseline: Int32 = 0
    #endif

    /// Pins the flags to the baseline until `endBaseline`; waits for decoders setting up,
    /// and no other thread pins meanwhile.
    static func beginBaseline() {
        condition.lock()
        while pinned || settingUp > 0 { condition.wait() }
        pinned = true
        condition.unlock()
        av_force_cpu_flags(baseline)
    }

    /// Back to the processor's own flags (libav detects them again on the next query).
    static func endBaseline() {
        av_force_cpu_flags(-1)
        condition.lock()
        pinned = false
        condition.broadcast()
        condition.unlock()
    }

    /// A video decoder starts setting up (its first packet): waits for a pin to end.
    static func beginDecoderSetUp() {
        condition.lock()
        while pinned { condition.wait() }
        settingUp += 1
        condition.unlock()
    }

    /// Its first frame is out (or it is gone): pins may start again.
    static func endDecoderSetUp() {
        condition.lock()
        settingUp -= 1
        condition.broadcast()
        condition.unlock()
    }
}
