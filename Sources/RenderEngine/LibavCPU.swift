import CFFmpeg
import Foundation

/// libav picks DSP routines by CPU feature when a context is created, and some float
/// paths (AAC, atempo) and scaler paths round differently from one to another. Every such
/// context (scaler, encoder, filter graph, the opening of a decoder) is created with the
/// flags pinned to the x86-64 baseline, under one lock, so that every worker makes the
/// same bytes on any processor (docs/rendering.md, "Decisions and departures"). Between those moments
/// the flags are the processor's own: H.264 and HEVC decoders, which set up their
/// routines at the first picture and are bit-exact by their standards, run with all of
/// its SIMD (HEVC decodes 2.7x as fast as on the baseline). A decoder that sets up while
/// another thread holds the pin gets the baseline routines: the same pixels, slower.
public enum LibavCPU {
    private static let lock = NSLock()

    #if arch(x86_64)
    private static let baseline = AV_CPU_FLAG_MMX | AV_CPU_FLAG_MMXEXT | AV_CPU_FLAG_SSE | AV_CPU_FLAG_SSE2 | AV_CPU_FLAG_CMOV
    #else
    private static let baseline: Int32 = 0
    #endif

    /// Pins the flags to the baseline until `endBaseline`; no other thread pins meanwhile.
    static func beginBaseline() {
        lock.lock()
        av_force_cpu_flags(baseline)
    }

    /// Back to the processor's own flags (libav detects them again on the next query).
    static func endBaseline() {
        av_force_cpu_flags(-1)
        lock.unlock()
    }
}
