import ImporterModel

/// Samples the records of a JSON document or an NDJSON feed, streaming through `JSONScanner`.
///
/// A JSON document's records are its arrays of objects outside any record, in document order,
/// descending into objects: the root when it is an array, `/features` for a GeoJSON
/// FeatureCollection, `/data/stations` and `/data/alerts` when a document holds two kinds; each
/// array is one `FeedSample`. The first `limit` records of each are the sample; the rest are read
/// to the end for their types and presence only (`FeedSample.tail`), so memory stays bounded by
/// the sample and the suggested types read every record of the file.
final class JSONSampler {
    private let scanner: JSONScanner
    private let lines: Bool

    init(source: ByteSource, lines: Bool) {
        scanner = JSONScanner(source: source)
        self.lines = lines
    }

    /// One sample per array of records (NDJSON: the one feed), in document order.
    func samples(limit: Int) throws(FeedError) -> [FeedSample] {
        if lines { return [try records(at: nil, limit: limit)] }
        let empty = try scanner.unit { () throws(ScanError) -> Bool in try scanner.peek() == 0 }
        if empty { throw FeedError.shape(scanner.location(), "the feed is empty: no JSON document") }
        let root = try scanner.unit { () throws(ScanError) -> UInt8 in try scanner.peek() }
        var found: [FeedSample] = []
        if root == UInt8(ascii: "[") {
            try scanner.unit { () throws(ScanError) in try scanner.expect(UInt8(ascii: "["), "an array") }
            found.append(try records(at: [], limit: limit))
        } else if root == UInt8(ascii: "{") {
            try collectRecords(inObjectAt: [], limit: limit, into: &found)
        } else {
            throw FeedError.shape(scanner.location(), "the document is not an object or an array of records")
        }
        guard !found.isEmpty else {
            throw FeedError.shape(SourceLocation(source: scanner.source.name, line: 1, column: 1),
                                  "no array of objects (records) in the document: records must be JSON objects in an array")
        }
        return found
    }

    /// The records of the array the scanner stands in (after its `[`; `tokens` its path, nil for
    /// NDJSON), read to the array's `]` or the input's end.
    private func records(at tokens: [String]?, limit: Int) throws(FeedError) -> FeedSample {
        var sample = FeedSample(format: lines ? .ndjson : .json)
        if let tokens {
            sample.records = tokens.isEmpty ? nil : JSONRecordFlattener.pointer(tokens)
            sample.recordNoun = tokens.last.map(Self.singular)
        }
        var skipped = Set<String>()
        var index = 0
        while let members = try nextRecord(index: index) {
            let fields = JSONRecordFlattener.fields(of: members, skipped: &skipped)
            if index < limit {
                sample.recordFields.append(fields)
                Self.collectChildren(of: members, into: &sample.children)
            } else {
                sample.observeTail(fields)
            }
            index += 1
        }
        if !lines { try scanner.unit { () throws(ScanError) in try scanner.expect(UInt8(ascii: "]"), "']' after the records") } }
        let children = Set(sample.children.map { JSONRecordFlattener.pointer([$0.name]) })
        sample.skipped = skipped.subtracting(children).sorted().map { "\($0): an array of objects or arrays (not mapped)" }
        return sample
    }

    /// A sampled record's members that are arrays of objects, each a child sample of the record's
    /// elements, with the arrays of objects of those elements in turn (children of children).
    static func collectChildren(of members: [(String, JSONSampleValue)], into children: inout [(name: String, parents: [FeedSample])]) {
        for (name, value) in members {
            guard case .array(let elements) = value, !elements.isEmpty else { continue }
            let objects = elements.compactMap { element -> [(String, JSONSampleValue)]? in
                if case .object(let members) = element { return members }
                return nil
            }
            guard objects.count == elements.count else { continue }
            var parent = FeedSample(format: .json, records: JSONRecordFlattener.pointer([name]))
            parent.recordNoun = singular(name)
            var skipped = Set<String>()
            parent.recordFields = objects.map { JSONRecordFlattener.fields(of: $0, skipped: &skipped) }
            for object in objects { collectChildren(of: object, into: &parent.children) }
            let lists = Set(parent.children.map { JSONRecordFlattener.pointer([$0.name]) })
            parent.skipped = skipped.subtracting(lists).sorted().map { "\($0): an array of objects or arrays (not mapped)" }
            if let index = children.firstIndex(where: { $0.name == name }) {
                children[index].parents.append(parent)
            } else {
                children.append((name, [parent]))
            }
        }
    }

    /// `features` → `feature`, `entries` → `entry`, `data` → `data`.
    static func singular(_ word: String) -> String {
        let lower = word.lowercased()
        if lower.hasSuffix("ies"), lower.count > 4 { return String(lower.dropLast(3)) + "y" }
        if lower.hasSuffix("s"), !lower.hasSuffix("ss"), lower.count > 3 { return String(lower.dropLast()) }
        return lower
    }

    private enum Step { case end, skipped, records(String), object(String) }

    /// Walks the object the scanner stands before to its `}`, sampling every array whose first
    /// element is an object into `found`.
    private func collectRecords(inObjectAt path: [String], limit: Int, into found: inout [FeedSample]) throws(FeedError) {
        try scanner.unit { () throws(ScanError) in try scanner.expect(UInt8(ascii: "{"), "an object") }
        var first = true
        while true {
            let step = try scanner.unit { () throws(ScanError) -> Step in
                if try scanner.peek() == UInt8(ascii: "}") { scanner.position += 1; return .end }
                if !first { try scanner.expect(UInt8(ascii: ","), "',' or '}' in an object") }
                var key: [UInt8] = []
                try scanner.string(into: &key)
                try scanner.expect(UInt8(ascii: ":"), "':' after a key")
                let name = String(decoding: key, as: UTF8.self)
                switch try scanner.peek() {
                case UInt8(ascii: "{"): return .object(name)
                case UInt8(ascii: "["):
                    let before = scanner.checkpoint
                    scanner.position += 1
                    if try scanner.peek() == UInt8(ascii: "{") { return .records(name) }
                    scanner.restore(before)
                    try scanner.skipValue()
                    return .skipped
                default:
                    try scanner.skipValue()
                    return .skipped
                }
            }
            first = false
            switch step {
            case .end: return
            case .skipped: continue
            case .records(let name): found.append(try records(at: path + [name], limit: limit))
            case .object(let name): try collectRecords(inObjectAt: path + [name], limit: limit, into: &found)
            }
        }
    }

    /// The next record's members, or nil at the end of the records.
    private func nextRecord(index: Int) throws(FeedError) -> [(String, JSONSampleValue)]? {
        try scanner.unit { () throws(ScanError) -> [(String, JSONSampleValue)]? in
            let byte = try scanner.peek()
            if lines {
                if byte == 0 { return nil }
            } else {
                if byte == UInt8(ascii: "]") { return nil }
                if index > 0 { try scanner.expect(UInt8(ascii: ","), "',' or ']' after a record") }
            }
            guard try scanner.peek() == UInt8(ascii: "{") else {
                throw ScanError.invalid(.shape(scanner.location(recordIndex: index), "record \(index) is not a JSON object"))
            }
            guard case .object(let members) = try scanner.sampleValue() else { return nil }
            if lines { try endOfLine() }
            return members
        }
    }

    /// NDJSON: after a record, only spaces until the end of the line (or input).
    private func endOfLine() throws(ScanError) {
        while true {
            guard scanner.position < scanner.count else {
                if scanner.atEnd { return }
                throw .needMore
            }
            switch scanner.storage[scanner.position] {
            case 0x20, 0x09, 0x0D: scanner.position += 1
            case 0x0A: return
            default: throw scanner.syntaxError(expected: "the end of the line after a record (NDJSON has one object per line)")
            }
        }
    }
}
