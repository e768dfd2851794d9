@testable import ImporterKit
@testable import ImporterReports
import Testing

/// The spool `export` nests children with: entries read back in order across its 1 MiB buffers,
/// each taken by its parent's key, those of missing parents counted.
@Suite struct ChildSpoolTests {
    @Test func entriesComeBackByParentAcrossBuffers() throws {
        let spool = try ChildSpool(keyCount: 2)
        // 30,000 parents (every third without children), text keys of growing length, so entries
        // straddle the buffer boundaries; three children each.
        let parents = (0..<30_000).map { [Value.text(String(repeating: "p", count: $0 % 40) + "\($0)"), .integer(Int64($0))] }
            .sorted { a, b in Value.compare(a[0], b[0]) < 0 }
        var expected: [[Value]: [String]] = [:]
        for (index, key) in parents.enumerated() where index % 3 != 0 {
            for child in 0..<3 {
                let json = #"{"n":\#(child),"of":\#(index),"pad":"\#(String(repeating: "x", count: index % 97))"}"#
                expected[key, default: []].append(json)
                try Array(json.utf8).withUnsafeBufferPointer { try spool.append(key: key[...], json: $0) }
            }
        }
        // Two children of a parent that is not asked for, before the first and after the last.
        let orphan = #"{"orphan":true}"#
        try Array(orphan.utf8).withUnsafeBufferPointer { try spool.append(key: [.text("zzzz"), .null][...], json: $0) }
        let reader = try spool.reader()
        var mismatches = 0
        for key in parents {
            var taken: [String] = []
            try reader.take(key) { taken.append(String(decoding: $0, as: UTF8.self)) }
            if taken != expected[key] ?? [] { mismatches += 1 }
        }
        try reader.finish()
        #expect(mismatches == 0)
        #expect(reader.orphans == 1)
    }

    @Test func valuesOfEveryKindRoundTrip() throws {
        let spool = try ChildSpool(keyCount: 4)
        let key: [Value] = [.null, .integer(-1 << 62), .real(-0.5), .text("é\u{0}\"")]
        try Array("{}".utf8).withUnsafeBufferPointer { try spool.append(key: key[...], json: $0) }
        let reader = try spool.reader()
        var count = 0
        try reader.take(key) { _ in count += 1 }
        #expect(count == 1 && reader.orphans == 0)
    }
}
