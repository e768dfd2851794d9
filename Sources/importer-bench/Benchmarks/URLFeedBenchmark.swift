import Foundation

/// The same API feed imported from its file and over loopback HTTP (`importer run URL`, served by
/// Python's `http.server`, which answers `If-Modified-Since` with 304), each into a fresh store,
/// alternated `repeats` times (medians), then the URL once more into the loaded store: not
/// modified.
///
/// Target (issue 22): the URL run at ≥ 0.9× the file's rows/s, with the same peak RSS.
enum URLFeedBenchmark {
    struct Outcome {
        var file: [ProcessRunner.Measurement]
        var url: [ProcessRunner.Measurement]
        var notModified: ProcessRunner.Measurement
    }

    static func run(importer: String, feed: String, directory: String, records: Int, repeats: Int) throws -> Outcome {
        let port = try FreePort.loopback()
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", "-m", "http.server", String(port), "--bind", "127.0.0.1",
                            "--directory", (feed as NSString).deletingLastPathComponent]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let url = "http://127.0.0.1:\(port)/\((feed as NSString).lastPathComponent)"
        try waitUntilServing(port: port)
        let store = directory + "/url.sqlite"
        func run(_ source: String, fresh: Bool = true) throws -> ProcessRunner.Measurement {
            if fresh { StoreFiles.remove(store) }
            let m = try ProcessRunner.run(importer, ["run", "--store", store, "--model", "SampleData/models/fireball.yaml", "--exit-code", source],
                                          stdout: directory + "/url-report.txt")
            let expected: Int32 = fresh ? 0 : 1
            guard m.status == expected else { throw BenchError.failed("importer exited with \(m.status) for \(source) (expected \(expected))") }
            return m
        }
        var outcome = Outcome(file: [], url: [], notModified: try run(url))
        for _ in 0 ..< max(repeats, 1) {
            outcome.file.append(try run(feed))
            outcome.url.append(try run(url))
        }
        outcome.notModified = try run(url, fresh: false)
        StoreFiles.remove(store)
        return outcome
    }

    private static func waitUntilServing(port: Int) throws {
        for _ in 0 ..< 100 {
            let socket = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(socket) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            if connected { return }
            usleep(100_000)
        }
        throw BenchError.failed("python3 -m http.server did not start on port \(port) (is python3 installed?)")
    }

    static func table(_ outcome: Outcome, records: Int) -> BenchTable {
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let file = median(outcome.file.map(\.seconds)), url = median(outcome.url.map(\.seconds))
        let fileRSS = outcome.file.map(\.peakRSSKiB).max() ?? 0, urlRSS = outcome.url.map(\.peakRSSKiB).max() ?? 0
        var table = BenchTable(title: "Feeds from URLs: the same \(records) records from the file and over loopback HTTP (medians of \(outcome.file.count), alternated)",
                              headers: ["source", "run s", "rows/s", "× file", "peak RSS MiB"])
        table.add(["file", file.formatted(2), (Double(records) / file).formatted(0), "1.00", mebibytes(kiB: fileRSS)])
        table.add(["URL (200, body spooled beside the store)", url.formatted(2), (Double(records) / url).formatted(0), (file / url).formatted(2), mebibytes(kiB: urlRSS)])
        table.add(["URL again (304: not modified)", outcome.notModified.seconds.formatted(2), "–", "–", mebibytes(kiB: outcome.notModified.peakRSSKiB)])
        let ratio = file / url
        table.notes = [
            "run: `importer run --store fresh.sqlite --model SampleData/models/fireball.yaml --exit-code SOURCE`; the server is `python3 -m http.server`.",
            "target: the URL run ≥ 0.90× the file's rows/s: \(ratio.formatted(2)) (\(ratio >= 0.9 ? "met" : "NOT met")); "
                + "peak RSS within 10 %: \(mebibytes(kiB: urlRSS)) against \(mebibytes(kiB: fileRSS)) MiB (\(Double(urlRSS) <= Double(fileRSS) * 1.1 ? "met" : "NOT met")).",
        ]
        return table
    }
}
