import Foundation

/// This process's resident memory, from `/proc/self/status` (Linux).
///
/// `VmHWM` is the peak resident set of the current address space. It matters for the importer
/// figures: `posix_spawn` runs the child on the parent's address space until `exec`, and Linux
/// carries that address space's peak into the child's `ru_maxrss`, so a child can never report a
/// peak below the spawner's `VmHWM` at spawn time.
enum ProcessMemory {
    struct Snapshot {
        /// Current resident set (`VmRSS`), KiB.
        var residentKiB: Int
        /// Peak resident set (`VmHWM`), KiB.
        var peakKiB: Int
    }

    static func snapshot() throws -> Snapshot {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
            throw BenchError.io("cannot read /proc/self/status")
        }
        var resident: Int?
        var peak: Int?
        for line in status.split(separator: "\n") {
            // "VmHWM:\t  123456 kB"
            let parts = line.split(whereSeparator: { $0 == ":" || $0 == " " || $0 == "\t" })
            guard parts.count >= 2 else { continue }
            switch parts[0] {
            case "VmRSS": resident = Int(parts[1])
            case "VmHWM": peak = Int(parts[1])
            default: continue
            }
        }
        guard let resident, let peak else { throw BenchError.io("no VmRSS/VmHWM in /proc/self/status") }
        return Snapshot(residentKiB: resident, peakKiB: peak)
    }

    /// Resets `VmHWM` to the current resident set (`5` into `/proc/self/clear_refs`), so the peak
    /// read afterwards is the peak of what follows. Returns false when the kernel refused.
    @discardableResult
    static func resetPeak() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    /// Runs `body` and returns its result with the growth of the peak resident set above the
    /// resident set at the start (KiB), or nil when the peak could not be reset.
    static func peakGrowth<T>(_ body: () throws -> T) throws -> (T, Int?) {
        let reset = resetPeak()
        let before = try snapshot()
        let result = try body()
        let after = try snapshot()
        return (result, reset ? max(0, after.peakKiB - before.residentKiB) : nil)
    }
}
