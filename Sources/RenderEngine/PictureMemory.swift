#if canImport(Glibc)
import CMalloc
#endif

/// How the process's allocator treats picture-sized blocks (docs/rendering.md,
/// "Processors"). glibc hands blocks over a threshold straight back to the kernel, so a
/// filter that allocates a few 8 MB planes a frame pays for the kernel zeroing fresh pages
/// every frame (≈ 5 ms a 1080p gaussianBlur frame, `perf`: `clear_page_erms`). Raising the
/// thresholds to glibc's ceiling keeps freed planes in the heap for the next frame; a
/// render process's memory then stays at its peak instead of following each frame.
public enum PictureMemory {
    /// The largest mmap threshold glibc accepts on 64-bit systems: 32 MiB.
    static let mmapThreshold: Int32 = 32 << 20

    /// Call once at start, before pictures are allocated.
    public static func keepFreedPictures() {
        #if canImport(Glibc)
        _ = mallopt(M_MMAP_THRESHOLD, mmapThreshold)
        _ = mallopt(M_TRIM_THRESHOLD, 4 * mmapThreshold)
        #endif
    }
}
