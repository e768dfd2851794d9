import Foundation

/// Runs a command and measures its wall time and peak resident memory (`wait4`'s `ru_maxrss`),
/// noting this process's own peak (`VmHWM`) at spawn time: the child's figure cannot be lower
/// than that (see `ProcessMemory`), so it shows whether the child's peak is its own.
enum ProcessRunner {
    struct Measurement {
        var seconds: Double
        var peakRSSKiB: Int
        var status: Int32
        /// This process's `VmHWM` just before spawning, KiB.
        var spawnerPeakKiB: Int
    }

    static func run(_ executable: String, _ arguments: [String], stdout: String = "/dev/null", stderr: String = "/dev/null") throws -> Measurement {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawner = try ProcessMemory.snapshot()
        let clock = ContinuousClock()
        let began = clock.now
        let code = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard code == 0 else { throw BenchError.failed("cannot start \(executable): \(String(cString: strerror(code)))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchError.failed("wait4 failed: \(String(cString: strerror(errno)))") }
        }
        let elapsed = began.duration(to: clock.now).components
        let exit = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Measurement(seconds: Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18, peakRSSKiB: usage.ru_maxrss,
                           status: exit, spawnerPeakKiB: spawner.peakKiB)
    }
}
