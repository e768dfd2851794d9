import ImporterTestSupport
import Foundation
import ImporterKit
import PostgresTestSupport
import Testing

/// A store on a full disk: the run fails with 74 and the store keeps its last committed state.
/// Needs a small tmpfs (mount as root); skipped, and shown as skipped, where mounting is not allowed.
@Suite struct DiskFullTests {
    /// A tmpfs of `size` mounted at `disk` in `directory` (the caller unmounts it).
    static func mountedDisk(in directory: TemporaryDirectory, size: String) throws -> String {
        let disk = directory.path("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        try #require(mountTmpfs(at: disk, size: size), "mounting a tmpfs at \(disk)")
        return disk
    }

    static func mountTmpfs(at path: String, size: String) -> Bool {
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path]
        mount.standardError = FileHandle.nullDevice
        guard (try? mount.run()) != nil else { return false }
        mount.waitUntilExit()
        return mount.terminationStatus == 0
    }

    /// Whether this process can mount a tmpfs (root, on a system that allows it): probed once.
    static let canMountTmpfs: Bool = {
        guard getuid() == 0 else { return false }
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("importer-tmpfs-probe-\(getpid())").path
        guard (try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)) != nil else { return false }
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard mountTmpfs(at: probe, size: "64k") else { return false }
        unmount(probe)
        return true
    }()

    static func unmount(_ path: String) {
        let umount = Process()
        umount.executableURL = URL(fileURLWithPath: "/bin/umount")
        umount.arguments = [path]
        try? umount.run()
        umount.waitUntilExit()
    }

    @Test(.enabled(if: canMountTmpfs, "mounting a tmpfs needs root and a system that allows it")) func aFullDiskFailsWith74AndKeepsTheStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let disk = try Self.mountedDisk(in: directory, size: "4m")
        defer { Self.unmount(disk) }
        let store = disk + "/s.sqlite"
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let before = try StoreDigest.of(store)
        try Data(CrashTests.largeFeed(count: 40_000, offset: 1).utf8).write(to: URL(fileURLWithPath: directory.path("large.json")))
        let run = try importer(["run", "--store", store, directory.path("large.json")])
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains("store \(store): I/O error: the disk is full"), "\(run.stderr)")
        let connection = try SQLiteConnection(path: store, create: false)
        #expect(try connection.scalar("PRAGMA integrity_check") == .text("ok"))
        #expect(try StoreDigest.of(store) == before)
        #expect(try importer(["views", "verify", "--store", store]).status == 0)
    }

    /// The disk of `--temp-dir` fills while a shuffled feed is sorted: 74, naming the directory,
    /// and the store keeps its last committed state.
    @Test(.enabled(if: canMountTmpfs, "mounting a tmpfs needs root and a system that allows it")) func aFullDiskWhileSortingFailsWith74AndKeepsTheStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let disk = try Self.mountedDisk(in: directory, size: "256k")
        defer { Self.unmount(disk) }
        let store = directory.path("s.sqlite")
        try #require(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let before = try StoreDigest.of(store)
        try Data(CrashTests.largeFeed(count: 40_000, offset: 1, shuffled: true).utf8).write(to: URL(fileURLWithPath: directory.path("large.json")))
        let run = try importer(["run", "--store", store, "--temp-dir", disk, "--sort-memory", "128K", directory.path("large.json")])
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains("cannot write the run's temporary files in \(disk): No space left on device"), "\(run.stderr)")
        #expect(run.stderr.contains("--temp-dir DIR"), "\(run.stderr)")
        #expect(try StoreDigest.of(store) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk).isEmpty)
    }

    /// The disk of `--temp-dir` fills while the keys of records marked deleted are spilled: exit
    /// 74 naming the directory, the store as it was, nothing left on the disk.
    @Test(.enabled(if: canMountTmpfs, "mounting a tmpfs needs root and a system that allows it")) func aFullDiskWhileKeepingMarkedKeysFailsWith74() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let disk = try Self.mountedDisk(in: directory, size: "256k")
        defer { Self.unmount(disk) }
        let store = directory.path("s.sqlite")
        let model = try directory.write("m.yaml", DeleteMarkerTests.model(format: "ndjson", marker: "{field: deleted_at}"))
        try #require(try importer(["run", "--store", store, "--model", model, try directory.write("1.ndjson", #"{"id": "T1", "title": "t", "points": 1}"# + "\n")]).status == 0)
        let before = try StoreDigest.of(store)
        let marks = (0..<40_000).map { #"{"id": "ticket-number-\#($0)", "deleted_at": "2026-11-29"}"# }.joined(separator: "\n") + "\n"
        let run = try importer(["run", "--store", store, "--model", model, "--temp-dir", disk, try directory.write("2.ndjson", marks)])
        #expect(run.status == 74 && run.stderr.contains("cannot write the run's temporary files in \(disk): the keys of records marked deleted: No space left on device"),
                "\(run.stderr)")
        #expect(try StoreDigest.of(store) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk).isEmpty)
    }

    /// The disk of `--temp-dir` fills while a PostgreSQL first load keeps its records' origins
    /// (`DirectOrigins`): 74, naming the directory, nothing in the store, nothing left in the
    /// directory; the same run with room there loads every record.
    @Test(.enabled(if: canMountTmpfs, "mounting a tmpfs needs root and a system that allows it")) func aFullTemporaryDiskOnAPostgreSQLFirstLoadFailsWith74() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let disk = try Self.mountedDisk(in: directory, size: "64k")
        defer { Self.unmount(disk) }
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL()
        try Data(CrashTests.largeFeed(count: 40_000, offset: 1).utf8).write(to: URL(fileURLWithPath: directory.path("large.json")))
        let run = try importer(["run", "--store", url, "--temp-dir", disk, directory.path("large.json")])
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains("cannot keep a temporary file in \(disk): No space left on device"), "\(run.stderr)")
        #expect(run.stderr.contains("--temp-dir DIR"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk).isEmpty)
        // With room there, the same run is the store's first transaction and inserts every record.
        let again = try importer(["run", "--store", url, "--format", "json", directory.path("large.json")])
        #expect(again.status == 0, "\(again.stderr)")
        let report = again.json as? [String: Any]
        #expect((report?["transaction"] as? [String: Any])?["number"] as? Int == 1, "\(again.stdout.prefix(300))")
        #expect((report?["totals"] as? [String: Any])?["inserted"] as? Int == 40_000, "\(again.stdout.prefix(300))")
    }
}
