import Foundation

/// A throwaway PostgreSQL cluster for the tests: `initdb` into a temporary directory (as the
/// `postgres` user when the tests run as root, since initdb refuses root), `pg_ctl start` on a free
/// loopback port with trust authentication, stopped when the test process ends (at exit, and by a
/// watchdog if the process dies without exiting).
///
/// One cluster of each kind per test process (`shared`, `tls`); each test takes a database of its
/// own (`newStoreURL`).
public final class PostgresTestCluster: @unchecked Sendable {
    public let port: Int
    public let directory: URL
    /// The TLS cluster's certificates (nil for the plain cluster).
    public let certificates: TestCertificates?
    let binaries: URL
    private let lock = NSLock()
    private var databases = 0

    /// The cluster of this test process, started on first use.
    public static let shared: Result<PostgresTestCluster, ClusterError> = starting(tls: false)

    /// A second cluster that takes TLS connections only (`ssl=on`; `pg_hba.conf`: `hostssl … trust`,
    /// `hostnossl … reject`), listening on 127.0.0.1 and 127.0.0.2 with a certificate that names
    /// 127.0.0.1 and localhost only (`certificates`), started on first use.
    public static let tls: Result<PostgresTestCluster, ClusterError> = starting(tls: true)

    /// The started cluster, or a test failure saying why there is none.
    public static func start() throws -> PostgresTestCluster { try shared.get() }

    /// The started TLS cluster, or a test failure saying why there is none.
    public static func startTLS() throws -> PostgresTestCluster { try tls.get() }

    public struct ClusterError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    private static func starting(tls: Bool) -> Result<PostgresTestCluster, ClusterError> {
        Result { try PostgresTestCluster(tls: tls) }.mapError { $0 as? ClusterError ?? ClusterError(message: "\($0)") }
    }

    private init(tls: Bool) throws {
        guard let binaries = Self.findBinaries() else {
            throw ClusterError(message: "PostgreSQL server binaries not found (apt-get install postgresql)")
        }
        self.binaries = binaries
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("importer-pg-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        port = try Self.freePort()
        certificates = tls ? try TestCertificates(in: directory.appendingPathComponent("tls")) : nil
        if getuid() == 0 { try Self.run("/bin/chown", ["-R", "postgres:postgres", directory.path]) }
        let data = directory.appendingPathComponent("data").path
        try runAsServerUser(binaries.appendingPathComponent("initdb").path,
                            ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"])
        var options = "-p \(port) -k \(directory.path) -c fsync=off -c max_connections=60"
        if let certificates {
            let hba = directory.appendingPathComponent("tls/pg_hba.conf").path
            try "local all all trust\nhostssl all all 0.0.0.0/0 trust\nhostnossl all all 0.0.0.0/0 reject\n"
                .write(toFile: hba, atomically: true, encoding: .utf8)
            options += " -c listen_addresses=127.0.0.1,127.0.0.2 -c hba_file=\(hba) " + certificates.serverOptions
        } else {
            options += " -c listen_addresses=127.0.0.1"
        }
        try runAsServerUser(binaries.appendingPathComponent("pg_ctl").path,
                            ["-D", data, "-o", options, "-l", directory.appendingPathComponent("log").path, "-w", "start"])
        startWatchdog(data: data)
        Self.stopAtExit(self)
    }

    nonisolated(unsafe) private static var running: [PostgresTestCluster] = []
    private static let runningLock = NSLock()

    /// Stops `cluster` when the process exits (one `atexit` handler for every cluster).
    private static func stopAtExit(_ cluster: PostgresTestCluster) {
        runningLock.withLock {
            if running.isEmpty { atexit { PostgresTestCluster.runningLock.withLock { PostgresTestCluster.running }.forEach { $0.stop() } } }
            running.append(cluster)
        }
    }

    /// A fresh database for one test: `postgres://postgres@127.0.0.1:PORT/dbN`.
    public func newStoreURL(schema: String? = nil) throws -> String {
        let name = nextDatabaseName()
        try psql("CREATE DATABASE \(name)")
        return url(of: name) + (schema.map { "?schema=\($0)" } ?? "")
    }

    /// A new database holding a copy of the store at `url` (`CREATE DATABASE … TEMPLATE`), retried
    /// while the server still counts a session that just ended on it.
    public func newStoreURL(copying url: String) throws -> String {
        let name = nextDatabaseName()
        let create = "CREATE DATABASE \(name) TEMPLATE \(Self.database(of: url))"
        for _ in 0..<50 {
            do {
                try psql(create)
                return self.url(of: name)
            } catch let error as ClusterError where error.message.contains("is being accessed by other users") {
                usleep(100_000)
            }
        }
        try psql(create)
        return self.url(of: name)
    }

    /// Drops the database of the store at `url`, ending its sessions.
    public func dropStore(_ url: String) throws {
        try psql("DROP DATABASE IF EXISTS \(Self.database(of: url)) WITH (FORCE)")
    }

    /// The database a store URL names (`…/NAME?…`).
    public static func database(of url: String) -> String {
        String(url.split(separator: "/").last?.split(separator: "?").first ?? "")
    }

    private func nextDatabaseName() -> String {
        lock.withLock {
            databases += 1
            return "t\(databases)_\(UUID().uuidString.prefix(6).lowercased())"
        }
    }

    private func url(of database: String) -> String { "postgres://postgres@127.0.0.1:\(port)/\(database)" }

    /// Runs SQL with psql against `database` (default `postgres`) and returns its unaligned output.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        try psql([sql], database: database)
    }

    /// Runs each command in one psql session (`-c` each; every result printed, unaligned).
    @discardableResult
    public func psql(_ commands: [String], database: String = "postgres") throws -> String {
        try Self.run(binaries.appendingPathComponent("psql").path,
                     ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", database]
                        + commands.flatMap { ["-c", $0] })
    }

    /// Starts a psql session that holds the writer lock of the store in `database` (schema
    /// `public`) for `seconds`, the way a running import holds it; returns once it is held.
    public func holdWriterLock(database: String, seconds: Int) throws -> Process {
        try holdLock(database: database, taking: "SELECT pg_advisory_xact_lock(hashtext('importer-writer:public'))", seconds: seconds,
                     held: "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid::int = hashtext('importer-writer:public')",
                     what: "the writer lock")
    }

    /// Starts a psql session that reads `table` in a transaction left open for `seconds` (as a
    /// reader's would, holding its `ACCESS SHARE` lock); returns once the lock is held.
    public func holdReadLock(database: String, table: String, seconds: Int) throws -> Process {
        try holdLock(database: database, taking: "LOCK TABLE \(table) IN ACCESS SHARE MODE", seconds: seconds,
                     held: "SELECT count(*) FROM pg_locks WHERE locktype = 'relation' AND granted AND mode = 'AccessShareLock' "
                        + "AND relation = '\(table)'::regclass AND pid <> pg_backend_pid()",
                     what: "the read lock")
    }

    /// A psql session that runs `taking` in a transaction held open for `seconds`, once `held`
    /// (a count) says it took effect.
    private func holdLock(database: String, taking: String, seconds: Int, held: String, what: String) throws -> Process {
        let process = Process()
        process.executableURL = binaries.appendingPathComponent("psql")
        process.arguments = ["-X", "-q", "-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", database,
                             "-c", "BEGIN", "-c", taking, "-c", "SELECT pg_sleep(\(seconds))", "-c", "COMMIT"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<100 {
            if try psql(held, database: database) != "0" { return process }
            usleep(50_000)
        }
        throw ClusterError(message: "the psql session did not take \(what)")
    }

    func stop() {
        _ = try? runAsServerUser(binaries.appendingPathComponent("pg_ctl").path,
                                 ["-D", directory.appendingPathComponent("data").path, "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(at: directory)
    }

    /// A shell that stops the cluster when this process is gone (killed, crashed).
    private func startWatchdog(data: String) {
        let pgCtl = binaries.appendingPathComponent("pg_ctl").path
        let stop = (getuid() == 0 ? "runuser -u postgres -- " : "") + "\(pgCtl) -D '\(data)' -m immediate stop"
        // Gone, or a zombie its parent has not reaped yet (`kill -0` still succeeds on one).
        let pid = getpid()
        let script = "trap '' TERM INT HUP; while [ \"$(cut -d' ' -f3 /proc/\(pid)/stat 2>/dev/null || echo Z)\" != Z ]; do sleep 1; done; \(stop) >/dev/null 2>&1; rm -rf '\(directory.path)'"
        var child: pid_t = 0
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own process group: a signal to the test's group (timeout, Ctrl-C) does not stop it.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ["/bin/sh", "-c", script].map { (text: String) in strdup(text) } + [nil]
        defer { argv.forEach { free($0) } }
        // No inherited output: `swift test` waits for its pipe to close before it reaps the tests.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor in Int32(0)...2 { posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_RDWR, 0) }
        Self.closeInheritedDescriptors(&actions)
        _ = posix_spawn(&child, "/bin/sh", &actions, &attributes, argv, environ)
    }

    @discardableResult
    private func runAsServerUser(_ executable: String, _ arguments: [String]) throws -> String {
        getuid() == 0 ? try Self.run("/usr/sbin/runuser", ["-u", "postgres", "--", executable] + arguments) : try Self.run(executable, arguments)
    }

    private static func findBinaries() -> URL? {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path))?.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) } ?? []
        return versions.map { root.appendingPathComponent($0).appendingPathComponent("bin") }
            .first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("initdb").path) }
    }

    /// A loopback port nobody listens on now (bound to port 0, then released); other servers the
    /// tests start (Prometheus, node_exporter) take theirs here too.
    public static func freePort() throws -> Int {
        let socket = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw ClusterError(message: "no free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Closes every descriptor above 2 in the child. Other test threads spawn `importer` with pipes
    /// at the same time; a server or watchdog that inherited the write end of one of them would
    /// hold it open for its whole life, and that test would never read the end of its output.
    /// (glibc's `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module does not
    /// declare, found at run time; else each descriptor open now.)
    static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap(Int32.init) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }

    /// Runs a program to its end (posix_spawn + waitpid: Foundation's Process can miss the exit
    /// of `pg_ctl start`, whose server child outlives it). Output goes to a file, not a pipe: the
    /// server inherits the descriptors, and a pipe would never reach end of file.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let outputPath = NSTemporaryDirectory() + "importer-pg-out-\(UUID().uuidString)"
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        closeInheritedDescriptors(&actions)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { (text: String) in strdup(text) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw ClusterError(message: "cannot run \(executable): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = ((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let exited = status & 0x7f == 0
        guard exited && (status >> 8) & 0xff == 0 else {
            throw ClusterError(message: "\(URL(fileURLWithPath: executable).lastPathComponent) \(arguments.joined(separator: " ")) failed (status \(status)): \(text)")
        }
        return text
    }
}
