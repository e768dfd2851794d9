import Foundation

/// The bench's own throwaway PostgreSQL cluster: `initdb` into `<bench dir>/pg-<pid>` (as the
/// `postgres` user when the bench runs as root, since initdb refuses root), `pg_ctl start` on a free
/// loopback port with trust authentication and its socket in that directory, stopped and removed by
/// `stop()` (the bench calls it on success and on failure), or by a watchdog shell if the bench dies
/// without calling it (killed, interrupted).
///
/// The settings are the server's defaults (fsync on: commits wait for the disk) except
/// `autovacuum=off`, so that no background vacuum of one contender's table runs during the other's
/// timed run; the bench runs `VACUUM ANALYZE` and `CHECKPOINT` itself, untimed, before each timed run.
final class BenchPostgresCluster {
    let binaries: PostgresBinaries
    /// The cluster's directory (absolute): `data`, the server log `log`, the socket.
    let directory: String
    let port: Int
    private var watchdog: pid_t = 0
    private var running = false

    /// The server settings given to `postgres` (both contenders run against them).
    static let settings = ["listen_addresses=127.0.0.1", "fsync=on", "synchronous_commit=on", "autovacuum=off"]

    var data: String { directory + "/data" }

    /// Creates and starts a cluster under `benchDirectory`.
    init(binaries: PostgresBinaries, benchDirectory: String) throws {
        self.binaries = binaries
        let absolute = URL(fileURLWithPath: benchDirectory).standardizedFileURL.path
        directory = absolute + "/pg-\(getpid())"
        port = try FreePort.loopback()
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            if getuid() == 0 { _ = try CommandOutput.run("/bin/chown", ["-R", "postgres:postgres", directory], scratch: directory + "/chown") }
            _ = try asServerUser("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"])
            let options = (["-p \(port)", "-k \(directory)"] + Self.settings.map { "-c \($0)" }).joined(separator: " ")
            _ = try asServerUser("pg_ctl", ["-D", data, "-o", options, "-l", directory + "/log", "-w", "start"])
        } catch {
            let log = logTail(lines: 10)
            try? FileManager.default.removeItem(atPath: directory)
            throw BenchError.failed("\(error)\n  server log:\n\(log)")
        }
        running = true
        watchdog = startWatchdog()
    }

    /// `postgres://postgres@127.0.0.1:PORT/DATABASE`.
    func url(database: String) -> String { "postgres://postgres@127.0.0.1:\(port)/\(database)" }

    /// Arguments that connect psql to `database` over TCP (as the importer connects), without psqlrc.
    func psqlArguments(database: String) -> [String] {
        ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", database]
    }

    /// Runs `sql` with psql in `database`; returns its unaligned, tuples-only output.
    @discardableResult
    func psql(_ sql: String, database: String = "postgres") throws -> String {
        try CommandOutput.run(binaries.path("psql"), psqlArguments(database: database) + ["-A", "-t", "-c", sql], scratch: directory + "/psql")
    }

    /// The last `lines` lines of the server log, indented (for a failure message).
    func logTail(lines: Int) -> String {
        let text = (try? String(contentsOfFile: directory + "/log", encoding: .utf8)) ?? "(no server log)"
        return text.split(separator: "\n").suffix(lines).map { "    " + $0 }.joined(separator: "\n")
    }

    /// Stops the server (fast shutdown) and removes the directory; safe to call twice.
    func stop() {
        if running {
            running = false
            _ = try? asServerUser("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"])
        }
        if watchdog > 0 {
            kill(watchdog, SIGKILL)
            var status: Int32 = 0
            waitpid(watchdog, &status, 0)
            watchdog = 0
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func asServerUser(_ program: String, _ arguments: [String]) throws -> String {
        let scratch = NSTemporaryDirectory() + "importer-bench-\(getpid())-\(program)"
        if getuid() == 0 {
            return try CommandOutput.run("/usr/sbin/runuser", ["-u", "postgres", "--", binaries.path(program)] + arguments, scratch: scratch)
        }
        return try CommandOutput.run(binaries.path(program), arguments, scratch: scratch)
    }

    /// A shell in a process group of its own that waits for this process to be gone (or a zombie),
    /// then stops the server and removes the directory. Returns its pid (0 when it did not start).
    private func startWatchdog() -> pid_t {
        let stop = (getuid() == 0 ? "/usr/sbin/runuser -u postgres -- " : "") + "'\(binaries.path("pg_ctl"))' -D '\(data)' -m immediate stop"
        let pid = getpid()
        let script = "trap '' TERM INT HUP; while [ \"$(cut -d' ' -f3 /proc/\(pid)/stat 2>/dev/null || echo Z)\" != Z ]; do sleep 1; done; "
            + "\(stop) >/dev/null 2>&1; rm -rf '\(directory)'"
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor in Int32(0)...2 { posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_RDWR, 0) }
        let argv: [UnsafeMutablePointer<CChar>?] = ["/bin/sh", "-c", script].map { (text: String) in strdup(text) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        return posix_spawn(&child, "/bin/sh", &actions, &attributes, argv, environ) == 0 ? child : 0
    }
}
