import ImporterKit

/// What `YajlFireballReader`'s callbacks drive: where in the feed the parser is (top-level object,
/// `fields`, `data`, a row, a skipped member), the columns chosen by field name, the current row
/// and the batch.
///
/// A struct the reader keeps behind a pointer, so the callbacks mutate it without the dynamic
/// exclusivity checks (`swift_beginAccess`) that every access to a class's `var` costs: measured,
/// those checks and the retains of the class took more time than yajl itself.
///
/// Per row it does what `RecordMapper` does for the fireball feed: the date validated and copied
/// in canonical form by `DateTimeFormat`, numbers (strings or JSON numbers) parsed by
/// `NumberParser.double`, `lat-dir`/`lon-dir` (S/N, W/E) signing `lat`/`lon`, and the supplied
/// attributes appended to a batch of 8192 (dates in one byte arena, numbers with null flags) that
/// is folded into a `ParseDigest` and cleared when full. Each method returns 1 to go on, or 0
/// after noting the failure, which stops the parse.
struct YajlFeedState {
    /// What a column of `fields` feeds.
    private enum Kind { case ignored, date, number, sign }

    private struct Column {
        var kind: Kind
        /// The attribute position (`ParseDigest`'s numbering) the column fills or signs.
        var position = 0
        var negative: UInt8 = 0
        var positive: UInt8 = 0
    }

    /// Where in the feed the parser is.
    enum Place { case start, object, fields, data, row, skipping, end }

    private enum Member { case count, fields, data, other }

    /// Attribute positions: 0 `date`, then the numbers in entity order.
    private static let width = 10
    private static let numberFields: [String: Int] = [
        "energy": 1, "impact-e": 2, "lat": 3, "lon": 4, "alt": 5, "vel": 6, "vx": 7, "vy": 8, "vz": 9,
    ]
    private static func fieldName(_ position: Int) -> String {
        numberFields.first { $0.value == position }?.key ?? "position \(position)"
    }
    private static let signFields: [String: Column] = [
        "lat-dir": Column(kind: .sign, position: 3, negative: UInt8(ascii: "S"), positive: UInt8(ascii: "N")),
        "lon-dir": Column(kind: .sign, position: 4, negative: UInt8(ascii: "W"), positive: UInt8(ascii: "E")),
    ]

    private let dateFormat: DateTimeFormat
    private let batchSize: Int
    private(set) var place = Place.start
    private var member = Member.other
    private var skipDepth = 0
    private var fieldNames: [String] = []
    private var columns: [Column] = []
    private var declaredCount: Int?
    private(set) var failure: String?
    private(set) var records = 0
    private(set) var digest = ParseDigest()

    // The current row.
    private var columnIndex = 0
    private var hasDate = false
    private var numbers = [Double](repeating: 0, count: width)
    private var isNull = [Bool](repeating: true, count: width)
    /// -1 / +1 from a sign column, 0 when the row's sign value is null or unknown.
    private var signs = [Int8](repeating: 0, count: width)
    /// Positions whose value needs a sign column.
    private var signed = [Bool](repeating: false, count: width)
    /// The number positions the feed supplies, in entity order: like `RecordMapper`, the batch
    /// holds only supplied attributes.
    private var supplied: [Int] = []

    // The batch.
    private var dates: [UInt8] = []
    private var dateEnds: [Int] = []
    private var batchNumbers: [Double] = []
    private var batchNulls: [Bool] = []

    init(batchSize: Int) throws {
        dateFormat = try DateTimeFormat(pattern: "%Y-%m-%d %H:%M:%S")
        self.batchSize = batchSize
        dates.reserveCapacity(batchSize * 19)
        dateEnds.reserveCapacity(batchSize)
        batchNumbers.reserveCapacity(batchSize * Self.width)
        batchNulls.reserveCapacity(batchSize * Self.width)
    }

    enum Scalar { case null, boolean, number, string }

    private mutating func fail(_ message: String) -> Int32 {
        failure = failure ?? message
        return 0
    }

    mutating func key(_ text: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
        guard place == .object else { return place == .skipping ? 1 : fail("unexpected key") }
        let key = UnsafeBufferPointer(start: text, count: count)
        member = key.elementsEqual("fields".utf8) ? .fields : key.elementsEqual("data".utf8) ? .data : key.elementsEqual("count".utf8) ? .count : .other
        return 1
    }

    mutating func open(array: Bool) -> Int32 {
        switch place {
        case .start:
            guard !array else { return fail("the feed is not a JSON object") }
            place = .object
        case .object:
            switch (member, array) {
            case (.fields, true): place = .fields
            case (.data, true):
                guard !columns.isEmpty else { return fail("'data' appears before 'fields'") }
                place = .data
            case (.fields, false), (.data, false): return fail("'fields' and 'data' must be arrays")
            default:
                place = .skipping
                skipDepth = 1
            }
        case .data:
            guard array else { return fail("row \(records) is not an array") }
            place = .row
            columnIndex = 0
            hasDate = false
            for position in 0..<Self.width {
                isNull[position] = true
                signs[position] = 0
            }
        case .skipping: skipDepth += 1
        case .fields, .row, .end: return fail("row and field values must be strings, numbers or null")
        }
        return 1
    }

    mutating func close(array: Bool) -> Int32 {
        switch place {
        case .object:
            place = .end
            guard declaredCount == nil || declaredCount == records else { return fail("count is \(declaredCount ?? 0) but 'data' has \(records) rows") }
        case .fields:
            guard let columns = plan(fieldNames) else { return 0 }
            self.columns = columns
            supplied = (1..<Self.width).filter { position in columns.contains { $0.kind == .number && $0.position == position } }
            place = .object
        case .data:
            foldBatch()
            place = .object
        case .row:
            place = .data
            return finishRow()
        case .skipping:
            skipDepth -= 1
            if skipDepth == 0 { place = .object }
        case .start, .end: return fail("unexpected end of \(array ? "array" : "object")")
        }
        return 1
    }

    mutating func scalar(_ kind: Scalar, _ text: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
        switch place {
        case .row: return value(kind, text, count)
        case .object:
            if member == .count, kind == .string || kind == .number, let text {
                declaredCount = Int(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
            }
            return 1
        case .fields:
            guard kind == .string, let text else { return fail("field names must be strings") }
            fieldNames.append(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
            return 1
        case .skipping: return 1
        case .data: return fail("row \(records) is not an array")
        case .start, .end: return fail("the feed is not a JSON object")
        }
    }

    /// The columns for the field names; nil (after noting the failure) when the feed lacks the
    /// key or has a value without its sign field.
    private mutating func plan(_ names: [String]) -> [Column]? {
        let columns = names.map { name -> Column in
            if name == "date" { return Column(kind: .date) }
            if let position = Self.numberFields[name] { return Column(kind: .number, position: position) }
            return Self.signFields[name] ?? Column(kind: .ignored)
        }
        guard columns.contains(where: { $0.kind == .date }) else { _ = fail("the feed does not supply the unique key: field date"); return nil }
        for sign in columns where sign.kind == .sign {
            signed[sign.position] = true
        }
        for (name, sign) in Self.signFields where !columns.contains(where: { $0.kind == .sign && $0.position == sign.position }) {
            if columns.contains(where: { $0.kind == .number && $0.position == sign.position }) {
                _ = fail("the feed has a value without its sign field '\(name)'")
                return nil
            }
        }
        return columns
    }

    // MARK: - Mapping a row

    @inline(__always)
    private mutating func value(_ kind: Scalar, _ text: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
        guard columnIndex < columns.count else { return fail("row \(records) has more values than the \(columns.count) fields") }
        let column = columns[columnIndex]
        columnIndex += 1
        switch column.kind {
        case .ignored:
            return 1
        case .date:
            guard kind == .string, let text else { return fail("row \(records): date is \(kind == .null ? "null" : "not text")") }
            let start = dates.count
            guard dateFormat.parse(text, count: count, includeTime: true, into: &dates) else {
                dates.removeSubrange(start...)
                return fail("row \(records): expected a datetime in the format %Y-%m-%d %H:%M:%S")
            }
            hasDate = true
        case .number:
            if kind == .null { return 1 }
            guard kind != .boolean, let text, let number = NumberParser.double(text, count: count) else {
                return fail("row \(records): expected a number")
            }
            numbers[column.position] = number
            isNull[column.position] = false
        case .sign:
            guard kind == .string, count == 1, let text else { return 1 }
            signs[column.position] = text[0] == column.negative ? -1 : text[0] == column.positive ? 1 : 0
        }
        return 1
    }

    private mutating func finishRow() -> Int32 {
        guard columnIndex == columns.count else { return fail("row \(records) has \(columnIndex) values but there are \(columns.count) fields") }
        guard hasDate else { return fail("row \(records): date is missing") }
        dateEnds.append(dates.count)
        for position in supplied {
            var number = numbers[position]
            if !isNull[position], signed[position] {
                switch signs[position] {
                case -1: number = -number
                case 1: break
                default: return fail("row \(records): the sign field of \(Self.fieldName(position)) is null or unknown")
                }
            }
            batchNumbers.append(isNull[position] ? 0 : number)
            batchNulls.append(isNull[position])
        }
        records += 1
        if dateEnds.count == batchSize { foldBatch() }
        return 1
    }

    /// Folds the batch into the digest and clears it (capacity kept).
    private mutating func foldBatch() {
        let width = supplied.count
        dates.withUnsafeBufferPointer { dates in
            var start = 0
            for (record, end) in dateEnds.enumerated() {
                digest.text(UnsafeBufferPointer(rebasing: dates[start..<end]))
                start = end
                for offset in 0..<width {
                    let index = record * width + offset
                    if batchNulls[index] { digest.nulls += 1 } else { digest.real(batchNumbers[index], position: offset + 1) }
                }
                digest.records += 1
            }
        }
        dates.removeAll(keepingCapacity: true)
        dateEnds.removeAll(keepingCapacity: true)
        batchNumbers.removeAll(keepingCapacity: true)
        batchNulls.removeAll(keepingCapacity: true)
    }
}
