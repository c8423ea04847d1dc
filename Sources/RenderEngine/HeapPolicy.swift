#if canImport(Glibc)
import CMalloc
#endif

/// How the process's allocator (glibc's) is tuned: for render processes, picture-sized
/// blocks kept (docs/rendering.md, "Processors"); for the coordinator, few heaps and large
/// passing allocations given back (docs/operations.md, "Limits").
///
/// Pictures: glibc hands blocks over a threshold straight back to the kernel, so a
/// filter that allocates a few 8 MB planes a frame pays for the kernel zeroing fresh pages
/// every frame (≈ 5 ms a 1080p gaussianBlur frame, `perf`: `clear_page_erms`). Raising the
/// thresholds to glibc's ceiling keeps freed planes in the heap for the next frame; a
/// render process's memory then stays at its peak instead of following each frame.
public enum HeapPolicy {
    /// The largest mmap threshold glibc accepts on 64-bit systems: 32 MiB.
    static let mmapThreshold: Int32 = 32 << 20

    /// A server's threads share two heaps instead of one each (glibc makes up to 8 per
    /// core): a thread's heap keeps what a large, passing allocation grew it to, and
    /// `malloc_trim` did not give it back — a coordinator that refused a 100,000-segment
    /// submission stayed 59 MB larger with a heap per thread, 9.5 MB with two. Call at
    /// start, before the threads.
    ///
    /// A worker's threads share `count` heaps, one per render slot and one more (docs/rendering.md,
    /// "Memory for pictures"): a picture made on a shard's picture thread and freed on its
    /// encoding thread otherwise leaves each thread's heap at its own peak.
    public static func shareHeaps(_ count: Int = 2) {
        #if canImport(Glibc)
        _ = mallopt(M_ARENA_MAX, Int32(clamping: max(1, count)))
        #endif
    }

    /// Gives the heap's free pages back to the kernel: after a large allocation that has
    /// passed (a coordinator's refused 100,000-segment submission held ≈ 370 MB while it
    /// was decoded), which the raised thresholds would otherwise keep for good.
    public static func releaseFreed() {
        #if canImport(Glibc)
        _ = malloc_trim(0)
        #endif
    }

    /// Call once at start, before pictures are allocated.
    public static func keepFreedPictures() {
        #if canImport(Glibc)
        _ = mallopt(M_MMAP_THRESHOLD, mmapThreshold)
        _ = mallopt(M_TRIM_THRESHOLD, 4 * mmapThreshold)
        #endif
    }
}
