import Foundation

/// Writes a copy of an API feed (one record per line, as `Generator` writes it) with its records
/// in a random order, as real feeds come, holding a bucket of lines at a time: each record line is
/// dealt to one of `buckets` temporary files at random, then each file is shuffled in memory and
/// appended (a uniform shuffle's effect on key order; seeded, so repeatable).
enum FeedShuffle {
    static func shuffle(_ feed: String, to output: String, buckets: Int = 64, seed: UInt64 = 42) throws {
        guard let input = fopen(feed, "r") else { throw BenchError.failed("cannot read \(feed)") }
        defer { fclose(input) }
        var random = Generator.Random(state: seed)
        let bucketPaths = (0 ..< buckets).map { output + ".bucket\($0)" }
        defer { for path in bucketPaths { unlink(path) } }
        var files = try bucketPaths.map { path in
            guard let file = fopen(path, "w") else { throw BenchError.failed("cannot write \(path)") }
            return file
        }
        var header: String?
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        while getline(&line, &capacity, input) > 0, let line {
            var text = String(cString: line)
            guard header != nil else {
                header = text
                continue
            }
            text = text.trimmingCharacters(in: .newlines)
            if text.hasSuffix("]}") { text.removeLast(2) } else if text.hasSuffix(",") { text.removeLast() }
            fputs(text + "\n", files[Int(random.next() % UInt64(buckets))])
        }
        free(line)
        for file in files { fclose(file) }
        files = []
        let writer = try TextFileWriter(path: output)
        try writer.append(header ?? "")
        var first = true
        for path in bucketPaths {
            var rows = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            for index in rows.indices.reversed() where index > 0 {
                rows.swapAt(index, Int(random.next() % UInt64(index + 1)))
            }
            for row in rows {
                try writer.append((first ? "" : ",\n") + row)
                first = false
            }
        }
        try writer.append("]}\n")
        _ = try writer.close()
    }
}
