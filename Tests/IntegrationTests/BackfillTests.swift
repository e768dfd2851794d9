import Foundation
import ImporterTestSupport
import Testing

/// History backfilled from archived snapshots (issue 46.4): five dated snapshots imported oldest
/// first with `--timestamp`, each `--sync`; `export --as-of` each next day gives that snapshot's
/// store, `history --key` a record's true timeline; an out-of-order stamp is refused (65), the
/// store untouched. Both backends.
@Suite struct BackfillTests {
    @Test(arguments: ["sqlite", "postgres"]) func fiveDatedSnapshotsBecomeTheirHistory(backend: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try RealFeedShapesTests.newStore(backend, in: directory)
        let day2 = try String(contentsOfFile: sample("fireball-2026.json"), encoding: .utf8)
        // Day 3 revises an energy; day 4 drops the oldest event; day 5 revises it again.
        let day3 = day2.replacingOccurrences(of: #"["2024-07-21 08:12:05","2.4""#, with: #"["2024-07-21 08:12:05","2.6""#)
        let day4 = day3.replacingOccurrences(of: #",["2019-12-24 07:14:18","5.0","0.17","37.2","N","2.9","E","35.5","14.2"]"#, with: "")
            .replacingOccurrences(of: #""count":"11""#, with: #""count":"10""#)
        let day5 = day4.replacingOccurrences(of: #"["2024-07-21 08:12:05","2.6""#, with: #"["2024-07-21 08:12:05","2.7""#)
        let snapshots = [try String(contentsOfFile: sample("fireball-2024.json"), encoding: .utf8), day2, day3, day4, day5]
        var states: [String] = []
        for (index, text) in snapshots.enumerated() {
            let file = try directory.write("fireball-2024-03-0\(index + 1).json", text)
            let run = try importer(["run", "--store", store, "--sync", "--max-delete", "100%", "--max-updated", "100%",
                                    "--timestamp", "2024-03-0\(index + 1)T06:00:00Z", file])
            #expect(run.status == 0 && run.stdout.contains("at 2024-03-0\(index + 1)T06:00:00.000Z"), "\(run.stdout)\(run.stderr)")
            states.append(try importer(["export", "--store", store, "--format", "csv"]).stdout)
        }
        #expect(Set(states).count == 5, "each snapshot changed the store")
        for (index, state) in states.enumerated() {
            let past = try importer(["export", "--store", store, "--as-of", "2024-03-0\(index + 2)", "--format", "csv"])
            #expect(past.status == 0 && past.stdout == state, "as of 2024-03-0\(index + 2): \(past.stdout)\(past.stderr)")
        }
        #expect(try importer(["export", "--store", store, "--as-of", "2024-03-01", "--format", "json"]).stdout == "[]\n")
        let timeline = try importer(["history", "--store", store, "--key", "2024-07-21 08:12:05", "--format", "ndjson"]).stdout
        let stamps = timeline.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["timestamp"] as? String
        }
        #expect(stamps == ["2024-03-01T06:00:00.000Z", "2024-03-02T06:00:00.000Z", "2024-03-03T06:00:00.000Z", "2024-03-05T06:00:00.000Z"], "\(timeline)")
        // An older stamp than the last transaction's: refused, nothing written.
        let history = try importer(["history", "--store", store, "--format", "ndjson"]).stdout
        let late = try importer(["run", "--store", store, "--timestamp", "2024-03-04", sample("fireball-2024.json")])
        #expect(late.status == 65 && late.stderr.contains("--timestamp 2024-03-04T00:00:00.000Z is before the store's last transaction (5, at 2024-03-05T06:00:00.000Z)"),
                "\(late.stderr)")
        #expect(try importer(["history", "--store", store, "--format", "ndjson"]).stdout == history)
        #expect(try importer(["run", "--store", store, "--timestamp", "yesterday-ish", sample("fireball-2024.json")]).status == 64)
    }

    /// `timestamp-from:` reads each snapshot's time from its file name: a folder of
    /// `fireball-YYYYMMDD.json` files imported oldest first without `--timestamp` is stamped with
    /// their dates; a name the rule does not read is refused (64), naming the file.
    @Test func theFileNameGivesTheSnapshotsTime() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("f.sqlite")
        let model = try directory.write("m.yaml", try importer(["model", "show"]).stdout.replacingOccurrences(of: "- name: fireball-api\n", with: """
            - name: fireball-api
              timestamp-from: {file-name: 'fireball-(\\d{8})\\.json', format: "%Y%m%d"}

            """))
        #expect(try importer(["model", "check", model]).status == 0)
        for (day, feed) in [("20240301", "fireball-2024.json"), ("20240302", "fireball-2026.json")] {
            let file = directory.path("fireball-\(day).json")
            try FileManager.default.copyItem(atPath: sample(feed), toPath: file)
            let run = try importer(["run", "--store", store, "--model", model, "--sync", "--max-delete", "100%", "--max-updated", "100%", file])
            #expect(run.status == 0, "\(run.stderr)")
        }
        let stamps = try importer(["query", "--store", store, "--format", "csv", "SELECT timestamp FROM importer_transaction ORDER BY number"]).stdout
        #expect(stamps.split(separator: "\r\n").dropFirst() == [#""2024-03-01T00:00:00.000Z""#, #""2024-03-02T00:00:00.000Z""#], "\(stamps)")
        let undated = try directory.write("fireball-latest.json", try String(contentsOfFile: sample("fireball-2026.json"), encoding: .utf8))
        let refused = try importer(["run", "--store", store, "--model", model, undated])
        #expect(refused.status == 64 && refused.stderr.contains("fireball-latest.json: its name has no time that timestamp-from reads"), "\(refused.stderr)")
        let bad = try directory.write("bad.yaml", try String(contentsOfFile: model, encoding: .utf8).replacingOccurrences(of: "(\\d{8})", with: "\\d{8}"))
        let checked = try importer(["model", "check", bad])
        #expect(checked.status == 78 && checked.stderr.contains("has no capture group (the time is the first group's text)"), "\(checked.stderr)")
    }
}

/// The documented loop over one file's commits in a git repository, run as written (Docs/COMMANDS.md).
@Suite struct GitBackfillTests {
    @Test func aFilesCommitsBecomeItsHistory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let archive = directory.path("archive")
        try FileManager.default.createDirectory(atPath: archive, withIntermediateDirectories: true)
        var script = "set -e\ncd '\(directory.path(""))'\ngit -C archive init -q\n"
        for (feed, date) in [("fireball-2024.json", "2024-03-01T06:00:00Z"), ("fireball-2026.json", "2024-03-02T06:00:00Z")] {
            script += "cp '\(sample(feed))' archive/fireball.json\n"
            script += "git -C archive add fireball.json\n"
            script += "GIT_COMMITTER_DATE=\(date) GIT_AUTHOR_DATE=\(date) git -C archive -c user.name=t -c user.email=t@t commit -q -m snapshot\n"
        }
        let documented = try String(contentsOfFile: repositoryRoot.appendingPathComponent("Docs/COMMANDS.md").path, encoding: .utf8)
        let loop = try #require(documented.components(separatedBy: "```sh no-run\ngit -C archive log").dropFirst().first?.components(separatedBy: "```").first)
        script += "export IMPORTER_STORE='\(directory.path("git.sqlite"))' PATH='\(URL(fileURLWithPath: importerBinary).deletingLastPathComponent().path)':\"$PATH\"\n"
        script += "git -C archive log" + loop
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/bash")
        shell.arguments = ["-c", script]
        try shell.run()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)
        let stamps = try importer(["history", "--store", directory.path("git.sqlite"), "--format", "json"]).json as? [String: Any]
        let times = (stamps?["transactions"] as? [[String: Any]] ?? []).map { $0["timestamp"] as? String ?? "" }
        #expect(times == ["2024-03-01T06:00:00.000Z", "2024-03-02T06:00:00.000Z"], "\(times)")
        #expect(try importer(["export", "--store", directory.path("git.sqlite"), "--as-of", "2024-03-02", "--format", "ndjson"]).stdout.split(separator: "\n").count == 10)
    }
}
