import CLibXML2
import Foundation
import ImporterModel

/// Reading one record element: its fields, attributes, repeated values and predicates.
extension XMLRecordsReader {
    // MARK: - Records

    /// Reads the record element at the current node, through its end.
    func readRecord(into record: inout RawRecord) throws(FeedError) {
        currentRecord = recordsRead
        defer { currentRecord = nil }
        let position = elementPosition()
        record.index = recordsRead
        record.line = position.line
        record.column = position.column
        for ancestor in ancestors {
            guard let value = ancestor.value else { continue }
            let start = Int32(record.bytes.count)
            record.bytes.append(contentsOf: value.bytes)
            record.fill(ancestor.slot, with: RawSlot(kind: .string, start: start, count: Int32(value.bytes.count),
                                                     line: value.line, column: value.column))
        }
        try readElement(into: &record)
        recordsRead += 1
    }

    /// Reads the element at the current node, through its end, as field-tree node 0 of `tree`
    /// (a record, or in child mode one of its children).
    func readElement(into record: inout RawRecord) throws(FeedError) {
        frames.removeAll(keepingCapacity: true)
        active.removeAll(keepingCapacity: true)
        active.append(0)
        try enter(0..<1, into: &record)
        var skip = false
        while !frames.isEmpty {
            guard try advance(skippingSubtree: skip) else { throw failure() }
            skip = false
            switch nodeType {
            case NodeType.element:
                let parent = frames.count - 1
                if frames[parent].captures { frames[parent].composite = true }
                let first = active.count
                matchChildren(of: frames[parent].nodes)
                if active.count == first {
                    skip = true
                    if children == nil, let node = frames[parent].nodes.first.map({ active[$0] }) {
                        unmapped.note(reader, under: node, in: tree, record: recordsRead)
                    }
                } else if tree.hasChildren, active[first...].contains(where: { tree.nodes[$0].holdsChildren }) {
                    active.removeLast(active.count - first)
                    try readChild()
                } else {
                    try enter(first..<active.count, into: &record)
                }
            case NodeType.text, NodeType.cdata, NodeType.whitespace, NodeType.significantWhitespace:
                let frame = frames[frames.count - 1]
                if frame.captures && !frame.composite { try appendValue(to: &record) }
            case NodeType.endElement:
                close(frames.removeLast(), into: &record)
            default:
                break
            }
        }
    }

    /// Starts the record or field element at the current node, which is the field-tree nodes
    /// `active[nodes]`: restarts the position counts of their children, reads their attribute
    /// fields and `xsi:nil`, then opens its frame, or closes it at once when it is empty.
    func enter(_ nodes: Range<Int>, into record: inout RawRecord) throws(FeedError) {
        let position = elementPosition()
        var captures = false
        var readsAttributes = false
        for index in nodes {
            let info = tree.nodes[active[index]]
            captures = captures || info.capturesText
            readsAttributes = readsAttributes || !info.attributes.isEmpty
            if info.countsChildren {
                for child in info.children { counts[child] = 0 }
            }
        }
        var frame = Frame(nodes: nodes, start: 0, line: Int32(truncatingIfNeeded: position.line),
                          column: Int32(truncatingIfNeeded: position.column), captures: captures)
        if (readsAttributes || captures) && xmlTextReaderHasAttributes(reader) == 1 {
            try readAttributes(of: nodes, frame: &frame, into: &record)
        }
        frame.start = Int32(record.bytes.count)
        if xmlTextReaderIsEmptyElement(reader) == 1 {
            close(frame, into: &record)
        } else {
            frames.append(frame)
        }
    }

    /// Fills the attribute fields of the nodes `active[nodes]` from the current element, and
    /// notes its `xsi:nil`. Each value is appended to the record's bytes, then filled.
    func readAttributes(of nodes: Range<Int>, frame: inout Frame, into record: inout RawRecord) throws(FeedError) {
        defer { xmlTextReaderMoveToElement(reader) }
        while xmlTextReaderMoveToNextAttribute(reader) == 1 {
            let localName = xmlTextReaderConstLocalName(reader)
            var namespace: UnsafePointer<xmlChar>?
            var namespaceRead = false
            if frame.captures && xmlStrEqual(localName, nilName) == 1
                && xmlStrEqual(xmlTextReaderConstNamespaceUri(reader), xsiNamespace) == 1 {
                let value = xmlTextReaderConstValue(reader).map { String(cString: $0) } ?? ""
                frame.isNil = ["true", "1"].contains(value.trimmingCharacters(in: .whitespacesAndNewlines))
                continue
            }
            for index in nodes {
                for attributeIndex in tree.nodes[active[index]].attributes {
                    let attribute = tree.attributes[attributeIndex]
                    guard xmlStrEqual(localName, attribute.name.localName) == 1 else { continue }
                    if !namespaceRead {
                        namespace = xmlTextReaderConstNamespaceUri(reader)
                        namespaceRead = true
                    }
                    guard xmlStrEqual(namespace, attribute.name.namespace) == 1 else { continue }
                    let start = Int32(record.bytes.count)
                    try appendValue(to: &record)
                    record.fill(attribute.slot, with: RawSlot(kind: .string, start: start, count: Int32(record.bytes.count) - start,
                                                              line: frame.line, column: frame.column))
                }
            }
        }
    }

    /// Closes an element: its text (or null, or composite) fills the text slots of its nodes,
    /// and its nodes leave `active`.
    func close(_ frame: Frame, into record: inout RawRecord) {
        defer { active.removeLast(active.count - frame.nodes.lowerBound) }
        guard frame.captures else { return }
        let kind: RawKind = frame.isNil ? .null : frame.composite ? .composite : .string
        let value = RawSlot(kind: kind, start: frame.start, count: Int32(record.bytes.count) - frame.start,
                            line: frame.line, column: frame.column)
        for index in frame.nodes {
            for textIndex in tree.nodes[active[index]].textSlots { record.fill(tree.textSlots[textIndex], with: value) }
        }
    }

    /// Appends to `active` the children of the nodes `active[nodes]` that the current element is:
    /// its name, and its predicate (a position among the elements of its name under the parent
    /// element, or an attribute's value).
    @inline(__always)
    func matchChildren(of nodes: Range<Int>) {
        var localName: UnsafePointer<xmlChar>?
        var namespace: UnsafePointer<xmlChar>?
        var namespaceRead = false
        for index in nodes {
            for childIndex in tree.nodes[active[index]].children {
                let child = tree.children[childIndex]
                if localName == nil { localName = xmlTextReaderConstLocalName(reader) }
                guard xmlStrEqual(localName, child.step.name.localName) == 1 else { continue }
                if !namespaceRead {
                    namespace = xmlTextReaderConstNamespaceUri(reader)
                    namespaceRead = true
                }
                guard xmlStrEqual(namespace, child.step.name.namespace) == 1 else { continue }
                if child.step.position > 0 {
                    counts[childIndex] += 1
                    guard counts[childIndex] == child.step.position else { continue }
                }
                if let attribute = child.step.attribute, !currentElementHas(attribute, value: child.step.value) { continue }
                active.append(child.node)
            }
        }
    }

    /// Keeps the attributes the ancestor fields at `depth` read from the current element (an
    /// ancestor of the records to come): the value, or nil when it has none.
    func captureAncestors(at depth: Int) {
        let position = elementPosition()
        for index in ancestors.indices where ancestors[index].depth == depth {
            ancestors[index].value = nil
            guard xmlTextReaderHasAttributes(reader) == 1 else { continue }
            defer { xmlTextReaderMoveToElement(reader) }
            while xmlTextReaderMoveToNextAttribute(reader) == 1 {
                guard xmlStrEqual(xmlTextReaderConstLocalName(reader), ancestors[index].name.localName) == 1,
                      xmlStrEqual(xmlTextReaderConstNamespaceUri(reader), ancestors[index].name.namespace) == 1 else { continue }
                let value = xmlTextReaderConstValue(reader)
                let bytes = value.map { Array(UnsafeBufferPointer(start: $0, count: Int(xmlStrlen($0)))) } ?? []
                ancestors[index].value = (bytes, Int32(truncatingIfNeeded: position.line), Int32(truncatingIfNeeded: position.column))
                break
            }
        }
    }

    /// Whether the current element has the attribute `name` with exactly `value`.
    func currentElementHas(_ name: XMLFieldTree.Name, value: UnsafePointer<xmlChar>?) -> Bool {
        defer { xmlTextReaderMoveToElement(reader) }
        while xmlTextReaderMoveToNextAttribute(reader) == 1 {
            if xmlStrEqual(xmlTextReaderConstLocalName(reader), name.localName) == 1
                && xmlStrEqual(xmlTextReaderConstNamespaceUri(reader), name.namespace) == 1 {
                return xmlStrEqual(xmlTextReaderConstValue(reader), value) == 1
            }
        }
        return false
    }

    @inline(__always)
    func currentElementIs(_ name: XMLFieldTree.Name) -> Bool {
        xmlStrEqual(xmlTextReaderConstLocalName(reader), name.localName) == 1
            && xmlStrEqual(xmlTextReaderConstNamespaceUri(reader), name.namespace) == 1
    }

    /// Appends the current node's value (text, CDATA, attribute) to the record's bytes.
    @inline(__always)
    func appendValue(to record: inout RawRecord) throws(FeedError) {
        guard let value = xmlTextReaderConstValue(reader) else { return }
        record.bytes.append(contentsOf: UnsafeBufferPointer(start: value, count: Int(xmlStrlen(value))))
        if record.bytes.count > maximumRecordSize {
            throw FeedError.recordTooLarge(location(line: record.line, column: record.column), limit: maximumRecordSize)
        }
    }
}
