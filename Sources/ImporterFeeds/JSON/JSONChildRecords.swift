import ImporterModel

/// Child mode of `JSONRecordsReader`: the records are the children of each parent element, the
/// elements of the array at `path` in it (a relationship's `records`), each with its parent's
/// fields (`../name`: `../` before a key or pointer of the parent element), its grandparent's
/// (`../../name`) and so on up to the record, and its place in the array (`#position`). The parent
/// elements are the records (`enclosing` empty), or the elements of the arrays at `enclosing`
/// below them (children of children).
///
/// A record is read whole (its members in any order) before its children are handed out, so a
/// key written after the array is read too; memory holds one record's children. A parent element
/// whose array is absent (or null) gives one record marked `isParentOnly`, with only the fields
/// of the elements above: its stored children are kept, not deleted. An empty array gives no
/// record: the parent, written by its own mapping, then has no children.
struct JSONChildRecords {
    /// The array's reference tokens in the parent element.
    var path: [String]
    /// The arrays between the record and the parent elements, outermost first.
    var enclosing: [[String]] = []
    /// The children's own fields.
    var childTree = JSONRecordsReader.FieldTree()
    /// The slots filled from the record, and the slot of the child's place.
    var parentSlots: [Int] = []
    var positionSlot: Int?
    /// Per enclosing array: its elements' fields (the next array marked) and the slots they fill.
    var levels: [Level] = []
    /// Children of the current record read into `childBuffer`, and handed out so far.
    var count = 0
    var emitted = 0
    /// Whether the children's array was met in the current parent element.
    var arrayPresent = false
    var parentPending = false
    /// The shape of the caller's records (slots and their `repeated` rules), for the buffer's.
    var repeated: [RepeatedValues] = []

    struct Level {
        var tree = JSONRecordsReader.FieldTree()
        var slots: [Int] = []
    }
}

extension JSONRecordsReader {
    /// A reader of the children at `children` (a JSON pointer into each parent element) of the
    /// records at `records`, the parent elements found through the arrays at `enclosing`.
    public convenience init(source: ByteSource, records: String?, lines: Bool, children: String, enclosing: [String] = []) throws(FeedError) {
        try self.init(source: source, records: records, lines: lines)
        self.children = JSONChildRecords(path: Self.referenceTokens(children), enclosing: enclosing.map(Self.referenceTokens))
    }

    func openChildren(requesting fields: [String]) throws(FeedError) {
        guard var children else { return }
        let above = children.enclosing.count
        children.levels = Array(repeating: JSONChildRecords.Level(), count: above)
        for (slot, field) in fields.enumerated() {
            var name = Substring(field), up = 0
            while name.hasPrefix(ChildRecords.parentPrefix) {
                name = name.dropFirst(ChildRecords.parentPrefix.count)
                up += 1
            }
            let tokens = name.hasPrefix("/") ? Self.referenceTokens(String(name)) : [String(name)]
            if field == ChildRecords.positionField {
                children.positionSlot = slot
            } else if up == 0 {
                children.childTree.insert(tokens, slot: slot)
            } else if up == above + 1 {
                tree.insert(tokens, slot: slot)
                children.parentSlots.append(slot)
            } else if up <= above {
                children.levels[above - up].tree.insert(tokens, slot: slot)
                children.levels[above - up].slots.append(slot)
            } else {
                throw FeedError.shape(SourceLocation(source: scanner.source.name, line: 1, column: 1),
                                      "field '\(field)': a child reads the elements above it up to its record (\(above + 1) '../' at most), not the objects around the record")
            }
        }
        let arrays = children.enclosing + [children.path]
        tree.markChildren(arrays[0], level: 1)
        for index in children.levels.indices { children.levels[index].tree.markChildren(arrays[index + 1], level: index + 2) }
        self.children = children
        if !isLines { try openArray() }
    }

    /// The next child, or the next parent element without its array (`isParentOnly`).
    func nextChild(into record: inout RawRecord) throws(FeedError) -> Bool {
        guard var state = children else { return false }
        while true {
            if state.emitted < state.count {
                swap(&record, &childBuffer[state.emitted])
                copyParentFields(into: &record)
                state.emitted += 1
                children = state
                return true
            }
            if state.parentPending {
                state.parentPending = false
                children = state
                record.reset()
                copyParentFields(into: &record)
                (record.isParentOnly, record.index, record.line, record.column) = (true, parentRecord.index, parentRecord.line, parentRecord.column)
                record.parentIndex = parentRecord.index
                return true
            }
            children = state
            if parentRecord.slots.count != record.slots.count {
                parentRecord = RawRecord(slotCount: record.slots.count, repeated: record.repeated)
                children?.repeated = record.repeated
            }
            guard try nextRecord(into: &parentRecord), let read = children else { return false }
            state = read
            state.emitted = 0
            state.parentPending = state.enclosing.isEmpty && !state.arrayPresent
            for index in 0..<state.count { childBuffer[index].parentIndex = parentRecord.index }
        }
    }

    private func copyParentFields(into record: inout RawRecord) {
        guard let slots = children?.parentSlots else { return }
        record.copySlots(slots, from: parentRecord)
    }

    /// Reads the array at the scanner that holds the elements of `level` (1: the record's array;
    /// the last: the children): children into `childBuffer`; the elements of an enclosing array
    /// each read for its fields, which then go to the children read inside it.
    func readChildren(level: Int, depth: Int) throws(ScanError) {
        guard let state = children, try scanner.peek() == UInt8(ascii: "[") else { return try scanner.skipValue() }
        if level > state.enclosing.count { return try readInnermost(depth: depth) }
        scanner.position += 1
        if try scanner.peek() == UInt8(ascii: "]") {
            scanner.position += 1
            return
        }
        let shape = state.levels[level - 1]
        var place = 0
        repeat {
            guard try scanner.peek() == UInt8(ascii: "{") else {
                throw ScanError.invalid(.shape(scanner.location(recordIndex: index), "an element of the array above the children of record \(index) is not a JSON object"))
            }
            let line = scanner.line, column = scanner.currentColumn
            let first = children?.count ?? 0
            children?.arrayPresent = false
            var element = RawRecord(slotCount: state.repeated.count, repeated: state.repeated)
            try readObject(shape.tree, into: &element, depth: depth + 1)
            if level == state.enclosing.count, children?.arrayPresent == false { appendParentOnly(line: line, column: column) }
            for index in first..<(children?.count ?? first) {
                childBuffer[index].copySlots(shape.slots, from: element)
                childBuffer[index].enclosingPlaces.append(place)
            }
            place += 1
        } while try scanner.separator(close: UInt8(ascii: "]"), context: "in an array")
    }

    /// A record standing for an enclosing element without the children's array.
    private func appendParentOnly(line: Int, column: Int) {
        guard var state = children else { return }
        if state.count == childBuffer.count { childBuffer.append(RawRecord(slotCount: state.repeated.count, repeated: state.repeated)) }
        childBuffer[state.count].reset()
        (childBuffer[state.count].isParentOnly, childBuffer[state.count].line, childBuffer[state.count].column) = (true, line, column)
        state.count += 1
        children = state
    }

    /// Reads a parent element's array of children into `childBuffer` (at the array's `[`).
    private func readInnermost(depth: Int) throws(ScanError) {
        guard var state = children else { return try scanner.skipValue() }
        state.arrayPresent = true
        scanner.position += 1
        var count = state.count
        var place = 0
        // Filled outside the property, so that each child's fields are not one more dynamic
        // exclusivity check on the reader.
        var buffer: [RawRecord] = []
        swap(&buffer, &childBuffer)
        defer { swap(&buffer, &childBuffer) }
        if try scanner.peek() == UInt8(ascii: "]") {
            scanner.position += 1
        } else {
            repeat {
                _ = try scanner.peek()
                let line = scanner.line, column = scanner.currentColumn
                guard try scanner.peek() == UInt8(ascii: "{") else {
                    throw ScanError.invalid(.shape(scanner.location(recordIndex: index), "child \(place) of record \(index) is not a JSON object"))
                }
                if count == buffer.count { buffer.append(RawRecord(slotCount: state.repeated.count, repeated: state.repeated)) }
                buffer[count].reset()
                try readObject(state.childTree, into: &buffer[count], depth: depth + 1)
                (buffer[count].index, buffer[count].line, buffer[count].column) = (place, line, column)
                if let slot = state.positionSlot { Self.fillPosition(place, slot: slot, in: &buffer[count], line: line, column: column) }
                count += 1
                place += 1
            } while try scanner.separator(close: UInt8(ascii: "]"), context: "in an array of children")
        }
        state.count = count
        children = state
    }

    private static func fillPosition(_ position: Int, slot: Int, in record: inout RawRecord, line: Int, column: Int) {
        let digits = Array(String(position).utf8)
        let start = Int32(record.bytes.count)
        record.bytes.append(contentsOf: digits)
        record.fill(slot, with: RawSlot(kind: .number, start: start, count: Int32(digits.count),
                                        line: Int32(truncatingIfNeeded: line), column: Int32(truncatingIfNeeded: column)))
    }
}
