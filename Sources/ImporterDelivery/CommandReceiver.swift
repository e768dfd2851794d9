import Foundation
import Glibc
import ImporterSupport

/// Delivers each transaction to a command: `/bin/sh -c COMMAND` (as cron runs its lines: pipes,
/// redirections and `$IMPORTER_…` expansions work), the changes on its standard input, and
/// `IMPORTER_DELIVERY_ID`, `IMPORTER_TOKEN`, `IMPORTER_CONSUMER`, `IMPORTER_STORE` in its
/// environment. Exit 0 is received, 75 (EX_TEMPFAIL) or death by a signal is retried, any other
/// exit is a refusal quoting the first bytes of its standard error. The command runs in a process
/// group of its own: when it is still running as the deadline passes, the whole group (the shell
/// and whatever it started: a `curl`, a `sleep`) is stopped (SIGTERM, then SIGKILL 2 seconds
/// later), and that counts as a temporary failure, so a hung receiver cannot hold the consumer's
/// lock past `--deadline`, nor finish a transaction after importer gave up on it. A signal that
/// stops importer (`cancellation`) is passed on to the group the same way.
///
/// The command's standard output is importer's; its standard error is kept in a temporary file and
/// copied to importer's standard error once it ends. It inherits no other descriptor (no lock, no
/// store connection), and SIGINT, SIGTERM and SIGPIPE at their defaults.
public struct CommandReceiver: Receiver {
    public var command: String
    public var environment: [String: String]
    /// Raised by a signal that stops importer: the running command's group gets that signal.
    public var cancellation: CancellationFlag?

    public init(command: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.command = command
        self.environment = environment
    }

    public func deliver(_ delivery: Delivery, within seconds: Double) -> ReceiverOutcome {
        delivery.payload.rewind()
        var errors = [UInt8]()
        let status: Int32
        do {
            let errorFile = try CapturedOutput()
            let ended = try spawnAndWait(input: delivery.payload.descriptor, errorOutput: errorFile.descriptor, delivery: delivery, within: seconds)
            errors = errorFile.contents()
            guard let ended else {
                if !errors.isEmpty { FileHandle.standardError.write(Data(errors)) }
                return .temporary("the command did not finish within the deadline and was stopped", retryAfter: nil)
            }
            status = ended
        } catch {
            return .permanent("\(error)")
        }
        if !errors.isEmpty { FileHandle.standardError.write(Data(errors)) }
        let signal = status & 0x7f
        if signal != 0 { return .temporary("the command was killed by signal \(signal)", retryAfter: nil) }
        let code = (status >> 8) & 0xff
        switch code {
        case 0: return .delivered
        case 75: return .temporary("the command exited 75\(Self.quote(errors))", retryAfter: nil)
        default: return .permanent("the command exited \(code)\(Self.quote(errors))")
        }
    }

    public func close() {}

    /// `: ` and up to 200 bytes of `bytes` on one line, or nothing.
    static func quote(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes.prefix(200), as: UTF8.self)
            .map { $0.isNewline || $0 == "\t" ? " " : $0 }
        let line = String(text).trimmingCharacters(in: .whitespaces)
        return line.isEmpty ? "" : ": " + line + (bytes.count > 200 ? "…" : "")
    }

    private func variables(_ delivery: Delivery) -> [String] {
        var variables = environment
        variables["IMPORTER_DELIVERY_ID"] = delivery.attempt.deliveryID
        variables["IMPORTER_TOKEN"] = delivery.attempt.token
        variables["IMPORTER_CONSUMER"] = delivery.attempt.consumer
        variables["IMPORTER_STORE"] = delivery.store
        return variables.map { "\($0.key)=\($0.value)" }
    }

    /// Runs the command with `input` as its standard input and `errorOutput` as its standard
    /// error; its wait status, or nil when it was stopped for outliving `seconds`.
    private func spawnAndWait(input: Int32, errorOutput: Int32, delivery: Delivery, within seconds: Double) throws(DeliveryError) -> Int32? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input, 0)
        posix_spawn_file_actions_adddup2(&actions, errorOutput, 2)
        Self.closeInheritedDescriptors(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT] { sigaddset(&defaults, number) }
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))
        let argv: [UnsafeMutablePointer<CChar>?] = ["/bin/sh", "-c", command].map { (text: String) in strdup(text) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = variables(delivery).map { (text: String) in strdup(text) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw .receiver("cannot run /bin/sh: \(String(cString: strerror(spawned)))") }
        switch Self.wait(for: pid, until: Date().addingTimeInterval(max(seconds, 0.001)), cancellation: cancellation) {
        case .ended(let status): return status
        case .cancelled(let signal): Self.stopGroup(pid, first: signal)
        case .deadline: Self.stopGroup(pid, first: SIGTERM)
        }
        return nil
    }

    enum Waited {
        case ended(Int32)
        case deadline
        /// `cancellation` was raised by this signal.
        case cancelled(Int32)
    }

    /// `pid`'s wait status once it ends, polling every 10 ms; `.deadline` if it still runs at
    /// `deadline`, `.cancelled` as soon as `cancellation` is raised.
    static func wait(for pid: pid_t, until deadline: Date, cancellation: CancellationFlag? = nil) -> Waited {
        var status: Int32 = 0
        while true {
            let ended = waitpid(pid, &status, WNOHANG)
            if ended == pid { return .ended(status) }
            if ended == -1 && errno != EINTR { return .ended(status) }
            if let signal = cancellation?.raised { return .cancelled(signal) }
            guard Date() < deadline else { return .deadline }
            usleep(10_000)
        }
    }

    /// Signals the process group led by `pid` with `first`, then SIGKILL if its leader has not
    /// ended 2 seconds later; reaps the leader. (Its group id is its pid: it was spawned leading
    /// a group of its own.)
    static func stopGroup(_ pid: pid_t, first: Int32) {
        kill(-pid, first)
        if case .ended = wait(for: pid, until: Date().addingTimeInterval(2)) {
            // What the leader started may outlive it: the group goes with it.
            kill(-pid, SIGKILL)
            return
        }
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    }

    /// Closes every descriptor above 2 in the child (glibc's `posix_spawn_file_actions_addclosefrom_np`,
    /// which Swift's Glibc module does not declare, found at run time; else each descriptor open now).
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
}

/// An anonymous temporary file a child writes into (its standard error), read back once it ends.
final class CapturedOutput {
    let descriptor: Int32

    init() throws(DeliveryError) {
        descriptor = try AnonymousFile.create(prefix: "importer-receiver")
    }

    deinit { Glibc.close(descriptor) }

    /// What was written, from the start.
    func contents() -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var offset: off_t = 0
        while true {
            let read = chunk.withUnsafeMutableBytes { buffer in buffer.baseAddress.map { pread(descriptor, $0, buffer.count, offset) } ?? -1 }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { return result }
            result.append(contentsOf: chunk[0..<read])
            offset += off_t(read)
        }
    }
}
