import ImporterModel

/// Child mode of `JSONRecordsReader`: the records are the children of each parent record, the
/// elements of the array at `path` in it (a relationship's `records`), each with the parent's
/// fields (`../name`, `../` before a key or pointer of the parent record) and its place in the
/// array (`#position`).
///
/// A parent is read whole (its members in any order) before its children are handed out, so a
/// key written after the array is read too; memory holds one parent's children. A parent whose
/// array is absent (or null) gives one record marked `isParentOnly`, with only its fields: its
/// stored children are kept, not deleted. An empty array gives no record: the parent, written by
/// its own mapping, then has no children.
struct JSONChildRecords {
    /// The array's reference tokens in the parent record.
    var path: [String]
    /// The children's own fields.
    var childTree = JSONRecordsReader.FieldTree()
    /// The slots filled from the parent record, and the slot of the child's place.
    var parentSlots: [Int] = []
    var positionSlot: Int?
    /// Children of the current parent read into `childBuffer`, and handed out so far.
    var count = 0
    var emitted = 0
    var arrayPresent = false
    var parentPending = false
    /// The shape of the caller's records (slots and their `repeated` rules), for the buffer's.
    var repeated: [RepeatedValues] = []
}

extension JSONRecordsReader {
    /// A reader of the children at `children` (a JSON pointer into each record) of the records at
    /// `records`.
    public convenience init(source: ByteSource, records: String?, lines: Bool, children: String) throws(FeedError) {
        try self.init(source: source, records: records, lines: lines)
        self.children = JSONChildRecords(path: Self.referenceTokens(children))
    }

    func openChildren(requesting fields: [String]) throws(FeedError) {
        guard var children else { return }
        for (slot, field) in fields.enumerated() {
            if field == ChildRecords.positionField {
                children.positionSlot = slot
            } else if field.hasPrefix(ChildRecords.parentPrefix) {
                let name = String(field.dropFirst(ChildRecords.parentPrefix.count))
                guard !name.hasPrefix(ChildRecords.parentPrefix) else {
                    throw FeedError.shape(SourceLocation(source: scanner.source.name, line: 1, column: 1),
                                          "field '\(field)': a child reads its parent's members ('../name'), not those of objects around the parent")
                }
                tree.insert(name.hasPrefix("/") ? Self.referenceTokens(name) : [name], slot: slot)
                children.parentSlots.append(slot)
            } else {
                children.childTree.insert(field.hasPrefix("/") ? Self.referenceTokens(field) : [field], slot: slot)
            }
        }
        tree.markChildren(children.path)
        self.children = children
        if !isLines { try openArray() }
    }

    /// The next child, or the next parent without its array (`isParentOnly`).
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
            state.parentPending = !state.arrayPresent
            for index in 0..<state.count { (childBuffer[index].index, childBuffer[index].parentIndex) = (index, parentRecord.index) }
        }
    }

    private func copyParentFields(into record: inout RawRecord) {
        guard let slots = children?.parentSlots else { return }
        for slot in slots where parentRecord.slots[slot].kind != .absent {
            var value = parentRecord.slots[slot]
            let start = Int(value.start)
            value.start = Int32(record.bytes.count)
            record.bytes.append(contentsOf: parentRecord.bytes[start..<start + Int(value.count)])
            record.slots[slot] = value
        }
    }

    /// Reads the parent's array of children into `childBuffer` (at the array's value).
    func readChildren(depth: Int) throws(ScanError) {
        guard var state = children else { return try scanner.skipValue() }
        guard try scanner.peek() == UInt8(ascii: "[") else { return try scanner.skipValue() }
        state.arrayPresent = true
        scanner.position += 1
        var count = 0
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
                    throw ScanError.invalid(.shape(scanner.location(recordIndex: index), "child \(count) of record \(index) is not a JSON object"))
                }
                if count == buffer.count { buffer.append(RawRecord(slotCount: state.repeated.count, repeated: state.repeated)) }
                buffer[count].reset()
                try readObject(state.childTree, into: &buffer[count], depth: depth + 1)
                (buffer[count].line, buffer[count].column) = (line, column)
                if let slot = state.positionSlot { Self.fillPosition(count, slot: slot, in: &buffer[count], line: line, column: column) }
                count += 1
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
