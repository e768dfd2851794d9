import CLibXML2
import ImporterModel

/// Child mode of `XMLRecordsReader`: the records are the children of each record element, the
/// elements at `path` below it (a relationship's `records`, such as `/default:xref`), each read
/// with its own fields, the parent's (`../name`) and its place (`#position`).
///
/// A parent is read whole before its children are handed out, so its key may follow them; memory
/// holds one parent's children. XML has no empty list: a parent without a child element gives one
/// record marked `isParentOnly` and `mayBeEmptyList` (an empty list when the feed holds children
/// elsewhere; when it holds none, the path may be wrong, and the children are kept).
struct XMLChildRecords {
    var path: String
    var tree = XMLFieldTree()
    var counts: [Int32] = []
    var parentSlots: [Int] = []
    var positionSlot: Int?
    var count = 0
    var emitted = 0
    var parentPending = false
    /// The shape of the caller's records (slots and their `repeated` rules), for the buffer's.
    var repeated: [RepeatedValues] = []
}

extension XMLRecordsReader {
    /// Opens the document with the parent's fields (`../`) in the record tree, the children's
    /// path marked in it, and the children's fields in a tree of their own.
    func openChildren(requesting fields: [String]) throws(FeedError) -> FeedHeader {
        var state = XMLChildRecords(path: childPath ?? "")
        var parentFields: [String?] = [], childFields: [String?] = []
        for (slot, field) in fields.enumerated() {
            if field == ChildRecords.positionField {
                state.positionSlot = slot
                (parentFields, childFields) = (parentFields + [nil], childFields + [nil])
            } else if field.hasPrefix(ChildRecords.parentPrefix) {
                state.parentSlots.append(slot)
                (parentFields, childFields) = (parentFields + [String(field.dropFirst(ChildRecords.parentPrefix.count))], childFields + [nil])
            } else {
                (parentFields, childFields) = (parentFields + [nil], childFields + [field])
            }
        }
        children = state
        let header = try openFields(parentFields)
        var interned: [(elements: [XMLFieldTree.Step], attribute: XMLFieldTree.Name?)?] = []
        for field in childFields {
            guard let field else { interned.append(nil); continue }
            let address: (up: Int, elements: [XMLStep], attribute: XMLName?)
            do throws(XMLPathError) { address = try XMLPath.field(field, namespaces: resolvedNamespaces) } catch {
                throw FeedError.shape(SourceLocation(source: sourceName, line: 1, column: 1), error.message)
            }
            guard address.up == 0 else {
                throw FeedError.shape(SourceLocation(source: sourceName, line: 1, column: 1), "field '\(field)': a child's own fields are read below its element")
            }
            interned.append(try intern(address))
        }
        let childTree = XMLFieldTree(fields: interned)
        children?.tree = childTree
        children?.counts = Array(repeating: 0, count: childTree.children.count)
        return header
    }

    /// The element steps of the children's path below the record (`/default:xref` or `xref`).
    func internChildren(_ path: String, namespaces: [String: String]) throws(FeedError) -> [XMLFieldTree.Step] {
        let location = SourceLocation(source: sourceName, line: 1, column: 1)
        let address: (up: Int, elements: [XMLStep], attribute: XMLName?)
        do throws(XMLPathError) { address = try XMLPath.field(path.hasPrefix("/") ? String(path.dropFirst()) : path, namespaces: namespaces) } catch {
            throw FeedError.shape(location, "children '\(path)': " + error.message)
        }
        guard address.up == 0, address.attribute == nil, !address.elements.isEmpty else {
            throw FeedError.shape(location, "children '\(path)': give the path of the child elements below the record, such as /xref")
        }
        return try intern(address).elements
    }

    /// The next child, or the next parent without a child element (`isParentOnly`).
    func nextChild(into record: inout RawRecord) throws(FeedError) -> Bool {
        guard var state = children else { return false }
        while true {
            if state.emitted < state.count {
                swap(&record, &childBuffer[state.emitted])
                copyParentFields(into: &record, slots: state.parentSlots)
                record.parentIndex = parentRecord.index
                state.emitted += 1
                children = state
                return true
            }
            if state.parentPending {
                state.parentPending = false
                children = state
                record.reset()
                copyParentFields(into: &record, slots: state.parentSlots)
                (record.isParentOnly, record.mayBeEmptyList) = (true, true)
                (record.index, record.parentIndex, record.line, record.column) = (parentRecord.index, parentRecord.index, parentRecord.line, parentRecord.column)
                return true
            }
            if parentRecord.slots.count != record.slots.count {
                parentRecord = RawRecord(slotCount: record.slots.count, repeated: record.repeated)
                children?.repeated = record.repeated
            }
            children?.count = 0
            guard try nextRecord(into: &parentRecord), let read = children else { return false }
            state = read
            state.emitted = 0
            state.parentPending = state.count == 0
        }
    }

    private func copyParentFields(into record: inout RawRecord, slots: [Int]) {
        record.copySlots(slots, from: parentRecord)
    }

    /// Reads the child element at the current node into the buffer, with the children's tree
    /// in place of the record's (restored after, as are the record's open frames).
    func readChild() throws(FeedError) {
        guard var state = children else { return }
        var saved = (tree: state.tree, counts: state.counts, frames: [Frame](), active: [Int]())
        swap(&tree, &saved.tree)
        swap(&counts, &saved.counts)
        swap(&frames, &saved.frames)
        swap(&active, &saved.active)
        var buffer: [RawRecord] = []
        swap(&buffer, &childBuffer)
        defer {
            swap(&tree, &saved.tree)
            swap(&counts, &saved.counts)
            swap(&frames, &saved.frames)
            swap(&active, &saved.active)
            swap(&buffer, &childBuffer)
        }
        let place = state.count
        if place == buffer.count { buffer.append(RawRecord(slotCount: state.repeated.count, repeated: state.repeated)) }
        buffer[place].reset()
        let position = elementPosition()
        try readElement(into: &buffer[place])
        (buffer[place].index, buffer[place].line, buffer[place].column) = (place, position.line, position.column)
        if let slot = state.positionSlot {
            let digits = Array(String(place).utf8)
            let start = Int32(buffer[place].bytes.count)
            buffer[place].bytes.append(contentsOf: digits)
            buffer[place].fill(slot, with: RawSlot(kind: .number, start: start, count: Int32(digits.count),
                                                   line: Int32(truncatingIfNeeded: position.line), column: Int32(truncatingIfNeeded: position.column)))
        }
        state.count += 1
        children = state
    }
}
