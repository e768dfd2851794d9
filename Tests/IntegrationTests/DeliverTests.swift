import ImporterTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// `importer deliver --exec`: at least once, never skipping, stable delivery ids, retries of
/// temporary failures, a crash mid-batch, concurrent delivers of one consumer; on SQLite and
/// PostgreSQL stores.
@Suite struct DeliverTests {
    /// A store (`location`: an SQLite path or a postgres:// URL) with `rounds` history
    /// transactions, and the external consumer `mailer` from the beginning; the pending tokens.
    static func storeWithHistory(_ location: String, in directory: TemporaryDirectory, rounds: Int = 5) throws -> [String] {
        for round in 0..<rounds {
            let feed = directory.path("feed-\(round).json")
            try Data(CrashTests.largeFeed(count: 12, offset: round * 5).utf8).write(to: URL(fileURLWithPath: feed))
            let run = try importer(["run", "--no-replay", "--sync", "--max-delete", "100%", "--store", location, feed])
            try #require(run.status == 0, "\(run.stderr)")
            if round == 0 { try #require(try importer(["consumers", "add", "mailer", "--from", "beginning", "--store", location]).status == 0) }
        }
        return try pendingTokens(location)
    }

    /// The tokens of the transactions pending for `mailer`, oldest first.
    static func pendingTokens(_ location: String) throws -> [String] {
        let pending = try importer(["history", "--consumer", "mailer", "--format", "json", "--store", location])
        try #require(pending.status == 0, "\(pending.stderr)")
        let transactions = try #require((pending.json as? [String: Any])?["transactions"] as? [[String: Any]])
        return transactions.compactMap { $0["token"] as? String }
    }

    /// `(delivery id, token)` per line of a receiver's log.
    static func log(_ path: String) -> [(id: String, token: String)] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            return fields.count >= 2 ? (fields[0], fields[1]) : nil
        }
    }

    /// Writes a receiver script; `body` runs after the attempt is logged (`$D` is the directory).
    static func receiver(_ directory: TemporaryDirectory, _ body: String) throws -> String {
        let script = """
            D='\(directory.url.path)'
            cat > "$D/body.tmp"
            echo "$IMPORTER_DELIVERY_ID $IMPORTER_TOKEN $IMPORTER_CONSUMER" >> "$D/attempts.log"
            \(body)
            mv "$D/body.tmp" "$D/body-$IMPORTER_TOKEN.json"
            echo "$IMPORTER_DELIVERY_ID $IMPORTER_TOKEN" >> "$D/received.log"
            """
        let path = directory.path("receiver.sh")
        try Data(script.utf8).write(to: URL(fileURLWithPath: path))
        return "sh '\(path)'"
    }

    /// A receiver that refuses (exit 1) its first delivery, then takes every one: the first
    /// deliver exits 65 with the token unmoved; the rerun delivers every transaction, the first
    /// with the id it was first offered under, and the token reaches the head.
    func failingThenSucceeding(_ location: String, directory: TemporaryDirectory) throws {
        let expected = try Self.storeWithHistory(location, in: directory)
        let command = try Self.receiver(directory, """
            if [ ! -e "$D/failed" ]; then : > "$D/failed"; echo "not today: the inbox is full" >&2; exit 1; fi
            """)
        let first = try importer(["deliver", "--consumer", "mailer", "--exec", command, "--store", location])
        #expect(first.status == 65, "\(first.stderr)")
        #expect(first.stderr.contains("not today: the inbox is full") && first.stderr.contains(expected[0]), "\(first.stderr)")
        #expect(try Self.pendingTokens(location) == expected, "the token did not move")
        let refused = Self.log(directory.path("attempts.log"))
        #expect(refused.map(\.token) == [expected[0]])

        let second = try importer(["deliver", "--consumer", "mailer", "--exec", command, "--store", location])
        #expect(second.status == 0, "\(second.stderr)")
        let received = Self.log(directory.path("received.log"))
        #expect(received.map(\.token) == expected, "every transaction, in order")
        #expect(received.first?.id == refused.first?.id, "the same delivery id again")
        #expect(Set(received.map(\.id)).count == expected.count && received.allSatisfy { $0.id.hasPrefix("msg_") })
        #expect(try Self.pendingTokens(location).isEmpty)
        for (id, token) in received {
            let body = try Data(contentsOf: URL(fileURLWithPath: directory.path("body-\(token).json")))
            let document = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            #expect(document["delivery_id"] as? String == id && document["token"] as? String == token && document["consumer"] as? String == "mailer")
            #expect(((document["changes"] as? [Any])?.count ?? 0) > 0)
        }
        let third = try importer(["deliver", "--consumer", "mailer", "--exec", command, "--store", location])
        #expect(third.status == 0 && Self.log(directory.path("received.log")).count == expected.count, "nothing pending: nothing delivered")
    }

    @Test func aReceiverThatFailsOnceGetsEverythingOnTheRerun() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try failingThenSucceeding(directory.path("store.sqlite"), directory: directory)
    }

    @Test func aReceiverThatFailsOnceGetsEverythingOnTheRerunOnPostgreSQL() throws {
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL()
        defer { try? cluster.dropStore(url) }
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try failingThenSucceeding(url, directory: directory)
    }

    /// Exit 75 is temporary: retried with the same id within the deadline; past it, exit 75 and
    /// the token where it was.
    @Test func exit75IsRetriedWithinTheDeadline() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("store.sqlite")
        let expected = try Self.storeWithHistory(store, in: directory, rounds: 2)
        let flaky = try Self.receiver(directory, """
            if [ "$(wc -l < "$D/attempts.log")" -le 2 ]; then echo "busy" >&2; exit 75; fi
            """)
        let run = try importer(["deliver", "--consumer", "mailer", "--exec", flaky, "--deadline", "60s", "--store", store])
        #expect(run.status == 0, "\(run.stderr)")
        let attempts = Self.log(directory.path("attempts.log"))
        #expect(attempts.map(\.token) == [expected[0], expected[0], expected[0]] + expected.dropFirst())
        #expect(Set(attempts.prefix(3).map(\.id)).count == 1, "one id for every attempt")
        #expect(try Self.pendingTokens(store).isEmpty)

        let more = directory.path("more.json")
        try Data(CrashTests.largeFeed(count: 3, offset: 999).utf8).write(to: URL(fileURLWithPath: more))
        #expect(try importer(["run", "--no-replay", "--store", store, more]).status == 0)
        let pending = try Self.pendingTokens(store)
        let alwaysBusy = "cat > /dev/null; echo 'try later' >&2; exit 75"
        let started = Date()
        let gaveUp = try importer(["deliver", "--consumer", "mailer", "--exec", alwaysBusy, "--deadline", "2s", "--store", store])
        #expect(gaveUp.status == 75 && gaveUp.stderr.contains(pending[0]), "\(gaveUp.stderr)")
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(try Self.pendingTokens(store) == pending)
    }

    /// A receiver that hangs is stopped when the deadline passes: exit 75 within a few seconds of
    /// it, the token where it was, the hung command gone.
    @Test func aHungReceiverIsStoppedAtTheDeadline() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("store.sqlite")
        let expected = try Self.storeWithHistory(store, in: directory, rounds: 1)
        let marker = directory.path("hung.pid")
        let started = Date()
        let hung = try importer(["deliver", "--consumer", "mailer", "--exec", "cat > /dev/null; echo $$ > '\(marker)'; exec sleep 300",
                                 "--deadline", "2s", "--store", store])
        let took = Date().timeIntervalSince(started)
        #expect(hung.status == 75 && hung.stderr.contains("did not finish within the deadline"), "\(hung.stderr)")
        #expect(took < 15, "stopped near the deadline, not after the command's 300 s (took \(took) s)")
        #expect(try Self.pendingTokens(store) == expected)
        let pid = try #require(Int32(try String(contentsOfFile: marker, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, 0) == -1, "the hung command was stopped")
    }

    /// `kill -9` of deliver while its receiver works, then a rerun: the transaction in flight
    /// comes again under the same id, and none is skipped.
    @Test func aKilledDeliverResumesWithTheSameIdsAndSkipsNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try killedDeliverResumes(directory.path("store.sqlite"), directory: directory)
    }

    /// On PostgreSQL the killed process's session, and with it the consumer's advisory lock, ends.
    @Test func aKilledDeliverResumesWithTheSameIdsAndSkipsNothingOnPostgreSQL() throws {
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL()
        defer { try? cluster.dropStore(url) }
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try killedDeliverResumes(url, directory: directory)
    }

    func killedDeliverResumes(_ store: String, directory: TemporaryDirectory) throws {
        let expected = try Self.storeWithHistory(store, in: directory, rounds: 6)
        // Long enough that the kill, made as the third attempt starts, lands while it works.
        let command = try Self.receiver(directory, "sleep 1")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: importerBinary)
        process.arguments = ["deliver", "--consumer", "mailer", "--exec", command, "--store", store]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while Self.log(directory.path("attempts.log")).count < 3 && Date() < deadline { usleep(20_000) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let before = Self.log(directory.path("attempts.log"))
        try #require(before.count >= 3 && before.count < expected.count, "killed mid-batch")

        let rerun = try importer(["deliver", "--consumer", "mailer", "--exec", command, "--wait", "30", "--store", store])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let attempts = Self.log(directory.path("attempts.log"))
        let again = attempts.dropFirst(before.count)
        let inFlight = try #require(before.last)
        #expect(again.first?.token == inFlight.token && again.first?.id == inFlight.id, "the transaction in flight comes again, same id")
        #expect(Array(again.map(\.token)) == Array(expected.drop { $0 != inFlight.token }), "the rest, in order, none skipped")
        var idOfToken: [String: String] = [:]
        for attempt in attempts { #expect(idOfToken.updateValue(attempt.id, forKey: attempt.token).map { $0 == attempt.id } ?? true) }
        #expect(Set(Self.log(directory.path("received.log")).map(\.token)) == Set(expected))
        #expect(try Self.pendingTokens(store).isEmpty)
    }

    /// Four delivers of one consumer at once: they take turns (the consumer's lock), and every
    /// transaction reaches the receiver.
    @Test func concurrentDeliversLoseNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try concurrentDelivers(directory.path("store.sqlite"), directory: directory)
    }

    @Test func concurrentDeliversLoseNothingOnPostgreSQL() throws {
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL()
        defer { try? cluster.dropStore(url) }
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try concurrentDelivers(url, directory: directory)
    }

    func concurrentDelivers(_ store: String, directory: TemporaryDirectory) throws {
        let expected = try Self.storeWithHistory(store, in: directory, rounds: 8)
        let command = try Self.receiver(directory, "sleep 0.05")
        let statuses = Statuses()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let run = try? importer(["deliver", "--consumer", "mailer", "--exec", command, "--wait", "60", "--store", store])
            statuses.add(run.map { "\($0.status) \($0.stderr)" } ?? "did not run")
        }
        #expect(statuses.values.allSatisfy { $0.hasPrefix("0 ") }, "\(statuses.values)")
        let received = Self.log(directory.path("received.log")).map(\.token)
        #expect(Set(received) == Set(expected), "every change delivered")
        #expect(received == expected, "one at a time, in order: none delivered twice")
        #expect(try Self.pendingTokens(store).isEmpty)
    }

    /// With --no-wait, a deliver finding another one at work on the consumer exits 75 at once.
    @Test func aSecondDeliverWithoutWaitingExits75() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("store.sqlite")
        _ = try Self.storeWithHistory(store, in: directory, rounds: 3)
        let command = try Self.receiver(directory, "sleep 1")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: importerBinary)
        process.arguments = ["deliver", "--consumer", "mailer", "--exec", command, "--store", store]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while Self.log(directory.path("attempts.log")).isEmpty && Date() < deadline { usleep(20_000) }
        let second = try importer(["deliver", "--consumer", "mailer", "--exec", command, "--no-wait", "--store", store])
        #expect(second.status == 75 && second.stderr.contains("mailer"), "\(second.stderr)")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    /// `watch --deliver` delivers what is pending, then each transaction as it is committed.
    @Test(arguments: ["sqlite", "postgres"]) func watchDeliversAsTransactionsAreCommitted(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let cluster = backend == "postgres" ? try PostgresTestCluster.start() : nil
        let store = try cluster?.newStoreURL() ?? directory.path("store.sqlite")
        defer { if let cluster { try? cluster.dropStore(store) } }
        _ = try Self.storeWithHistory(store, in: directory, rounds: 2)
        let command = try Self.receiver(directory, "")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: importerBinary)
        process.arguments = ["watch", "--consumer", "mailer", "--deliver", "--exec", command, "--interval", "0.2", "--store", store]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        for round in 2..<4 {
            let feed = directory.path("feed-\(round).json")
            try Data(CrashTests.largeFeed(count: 12, offset: round * 5).utf8).write(to: URL(fileURLWithPath: feed))
            #expect(try importer(["run", "--no-replay", "--sync", "--max-delete", "100%", "--store", store, feed]).status == 0)
        }
        let all = try Self.pendingTokens(store) + Self.log(directory.path("received.log")).map(\.token)
        let deadline = Date().addingTimeInterval(30)
        while Set(Self.log(directory.path("received.log")).map(\.token)).count < 4 && Date() < deadline { usleep(50_000) }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let received = Self.log(directory.path("received.log")).map(\.token)
        #expect(received.count == 4 && Set(received).isSuperset(of: all), "\(received)")
        #expect(try Self.pendingTokens(store).isEmpty)
    }

    @Test func usageAndSecretErrors() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("store.sqlite")
        _ = try Self.storeWithHistory(store, in: directory, rounds: 1)
        #expect(try importer(["deliver", "--consumer", "mailer", "--store", store]).status == 64)
        #expect(try importer(["deliver", "--consumer", "mailer", "--webhook", "http://127.0.0.1:9/x", "--store", store]).status == 64)
        #expect(try importer(["deliver", "--consumer", "nobody", "--exec", "cat", "--store", store]).status == 64)
        let empty = directory.path("empty.secret")
        try Data().write(to: URL(fileURLWithPath: empty))
        let run = try importer(["deliver", "--consumer", "mailer", "--webhook", "http://127.0.0.1:9/x", "--webhook-secret-file", empty, "--store", store])
        #expect(run.status == 78 && run.stderr.contains("empty"), "\(run.stderr)")
    }
}

/// Results gathered from concurrent runs.
final class Statuses: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ value: String) { lock.withLock { list.append(value) } }
    var values: [String] { lock.withLock { list } }
}
