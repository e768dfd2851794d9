import CLibXML2
import ImporterModel

/// Child mode of `XMLRecordsReader`: the records are the elements at `path` (a relationship's
/// `records`, such as `/default:xref`) below each parent element, each read with its own fields,
/// its parent's (`../name`), its grandparent's (`../../name`) and so on up to the record and its
/// ancestors, and its place among its parent's children (`#position`). The parent elements are the
/// records (`enclosing` empty), or the elements at the `enclosing` paths below them, outermost
/// first (children of children: an order's `line` elements, whose `part` elements are the records).
///
/// A record is read whole before its children are handed out, so its key may follow them; memory
/// holds one record's children. XML has no empty list: a parent element without a child element
/// gives one record marked `isParentOnly` and `mayBeEmptyList` (an empty list when the feed holds
/// children elsewhere; when it holds none, the path may be wrong, and the children are kept).
struct XMLChildRecords {
    var path: String
    var enclosing: [String] = []
    /// The children's own fields, and the position counts of its predicates.
    var tree = XMLFieldTree()
    var counts: [Int32] = []
    /// Per enclosing path: its elements' fields (the next path marked) and the slots they fill.
    var levels: [Level] = []
    var parentSlots: [Int] = []
    var positionSlot: Int?
    var count = 0
    var emitted = 0
    var parentPending = false
    /// The shape of the caller's records (slots and their `repeated` rules), for the buffer's.
    var repeated: [RepeatedValues] = []
    /// While a record is read: the enclosing levels open (0: the record's own tree), the elements
    /// of each level met in the current element above it, and the first child of the current parent.
    var depth = 0
    var places: [Int] = []
    var firstOfParent = 0

    struct Level {
        var tree = XMLFieldTree()
        var counts: [Int32] = []
        var slots: [Int] = []
    }

    /// `path` and the enclosing paths, outermost first.
    var paths: [String] { enclosing + [path] }
}

extension XMLRecordsReader {
    /// Opens the document with the record's fields (those with one `../` more than the enclosing
    /// levels, the ancestors' beyond them) in the record tree, the first level's path marked in it;
    /// each enclosing level's fields in a tree of its own; the children's in theirs.
    func openChildren(requesting fields: [String]) throws(FeedError) -> FeedHeader {
        var state = XMLChildRecords(path: childPath ?? "", enclosing: childEnclosing)
        let above = state.enclosing.count
        state.levels = Array(repeating: XMLChildRecords.Level(), count: above)
        var parentFields: [String?] = [], childFields: [String?] = []
        var levelFields = Array(repeating: [String?](), count: above)
        for (slot, field) in fields.enumerated() {
            var name = Substring(field), up = 0
            while name.hasPrefix(ChildRecords.parentPrefix) {
                name = name.dropFirst(ChildRecords.parentPrefix.count)
                up += 1
            }
            let level = up >= 1 && up <= above ? above - up : nil
            if let level { state.levels[level].slots.append(slot) }
            if up > above { state.parentSlots.append(slot) }
            if field == ChildRecords.positionField { state.positionSlot = slot }
            parentFields.append(up > above ? String(repeating: ChildRecords.parentPrefix, count: up - above - 1) + name : nil)
            childFields.append(up == 0 && field != ChildRecords.positionField ? field : nil)
            for index in levelFields.indices { levelFields[index].append(index == level ? String(name) : nil) }
        }
        children = state
        let header = try openFields(parentFields)
        let paths = state.paths
        for index in 0..<above {
            let tree = XMLFieldTree(fields: try internOwnFields(levelFields[index]), children: try internChildren(paths[index + 1], namespaces: resolvedNamespaces))
            children?.levels[index].tree = tree
            children?.levels[index].counts = Array(repeating: 0, count: tree.children.count)
        }
        let childTree = XMLFieldTree(fields: try internOwnFields(childFields))
        children?.tree = childTree
        children?.counts = Array(repeating: 0, count: childTree.children.count)
        return header
    }

    /// The fields of an element below the record (a child's, an enclosing element's), interned;
    /// each must be read at or below that element.
    private func internOwnFields(_ fields: [String?]) throws(FeedError) -> [(elements: [XMLFieldTree.Step], attribute: XMLFieldTree.Name?)?] {
        var interned: [(elements: [XMLFieldTree.Step], attribute: XMLFieldTree.Name?)?] = []
        for field in fields {
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
        return interned
    }

    /// The element steps of a children's path below its parent element (`/default:xref` or `xref`).
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
                record.copySlots(state.parentSlots, from: parentRecord)
                record.parentIndex = parentRecord.index
                state.emitted += 1
                children = state
                return true
            }
            if state.parentPending {
                state.parentPending = false
                children = state
                record.reset()
                record.copySlots(state.parentSlots, from: parentRecord)
                (record.isParentOnly, record.mayBeEmptyList) = (true, true)
                (record.index, record.parentIndex, record.line, record.column) = (parentRecord.index, parentRecord.index, parentRecord.line, parentRecord.column)
                return true
            }
            if parentRecord.slots.count != record.slots.count {
                parentRecord = RawRecord(slotCount: record.slots.count, repeated: record.repeated)
                state.repeated = record.repeated
            }
            state.count = 0
            (state.firstOfParent, state.depth, state.places) = (0, 0, Array(repeating: 0, count: state.enclosing.count))
            children = state
            guard try nextRecord(into: &parentRecord), let read = children else { return false }
            state = read
            state.emitted = 0
            state.parentPending = state.enclosing.isEmpty && state.count == 0
        }
    }

    /// Reads the element at the current node, which a parent's tree marks as holding children:
    /// an element of an enclosing level, or a child.
    func readChild() throws(FeedError) {
        guard let state = children else { return }
        if state.depth < state.enclosing.count { return try readEnclosing(level: state.depth) }
        try readInnermost()
    }

    /// Runs `body` with `tree` and `counts` in place of the reader's (and fresh open frames),
    /// restoring them after.
    private func withTree(_ tree: inout XMLFieldTree, counts: inout [Int32], _ body: () throws(FeedError) -> Void) throws(FeedError) {
        var frames: [Frame] = [], active: [Int] = []
        swap(&self.tree, &tree)
        swap(&self.counts, &counts)
        swap(&self.frames, &frames)
        swap(&self.active, &active)
        defer {
            swap(&self.tree, &tree)
            swap(&self.counts, &counts)
            swap(&self.frames, &frames)
            swap(&self.active, &active)
        }
        try body()
    }

    /// Reads an element of enclosing level `level` for its fields, which then go to the children
    /// read inside it (with its place among its parent's elements of that path); one without a
    /// child element stands as a parent-only record when it is the children's parent.
    private func readEnclosing(level: Int) throws(FeedError) {
        guard let state = children else { return }
        let first = state.count, place = state.places[level], position = elementPosition()
        var shape = state.levels[level]
        var element = RawRecord(slotCount: state.repeated.count, repeated: state.repeated)
        children?.depth = level + 1
        if level + 1 < state.enclosing.count { children?.places[level + 1] = 0 } else { children?.firstOfParent = first }
        try withTree(&shape.tree, counts: &shape.counts) { () throws(FeedError) in try readElement(into: &element) }
        var count = children?.count ?? first
        if level == state.enclosing.count - 1 && count == first {
            if count == childBuffer.count { childBuffer.append(RawRecord(slotCount: state.repeated.count, repeated: state.repeated)) }
            childBuffer[count].reset()
            (childBuffer[count].isParentOnly, childBuffer[count].mayBeEmptyList) = (true, true)
            (childBuffer[count].index, childBuffer[count].line, childBuffer[count].column) = (place, position.line, position.column)
            count += 1
        }
        for index in first..<count {
            childBuffer[index].copySlots(shape.slots, from: element)
            childBuffer[index].enclosingPlaces.append(place)
        }
        children?.count = count
        children?.depth = level
        children?.places[level] = place + 1
    }

    /// Reads the child element at the current node into the buffer, with the children's tree.
    private func readInnermost() throws(FeedError) {
        guard var state = children else { return }
        var buffer: [RawRecord] = []
        swap(&buffer, &childBuffer)
        defer { swap(&buffer, &childBuffer) }
        let slot = state.count, place = state.count - state.firstOfParent
        if slot == buffer.count { buffer.append(RawRecord(slotCount: state.repeated.count, repeated: state.repeated)) }
        buffer[slot].reset()
        let position = elementPosition()
        try withTree(&state.tree, counts: &state.counts) { () throws(FeedError) in try readElement(into: &buffer[slot]) }
        (buffer[slot].index, buffer[slot].line, buffer[slot].column) = (place, position.line, position.column)
        if let positionSlot = state.positionSlot {
            let digits = Array(String(place).utf8)
            let start = Int32(buffer[slot].bytes.count)
            buffer[slot].bytes.append(contentsOf: digits)
            buffer[slot].fill(positionSlot, with: RawSlot(kind: .number, start: start, count: Int32(digits.count),
                                                          line: Int32(truncatingIfNeeded: position.line), column: Int32(truncatingIfNeeded: position.column)))
        }
        children?.count = slot + 1
    }
}
