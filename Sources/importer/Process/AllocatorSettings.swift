#if canImport(CMalloc)
import CMalloc
#endif

/// How this process's memory allocator is set before any command runs.
enum AllocatorSettings {
    /// Blocks of 1 MiB or more (a batch's arrays, a sorted run's buffers) are mapped on their own
    /// and given back when freed. Left alone, glibc raises that bound to the largest block freed
    /// so far (up to 32 MiB) and keeps such blocks in its heaps, where freed ones add to the peak
    /// RSS that a long run is bounded by (measured: Docs/PERFORMANCE.md).
    static func apply() {
        #if canImport(CMalloc)
        _ = mallopt(M_MMAP_THRESHOLD, 1 << 20)
        #endif
    }
}
