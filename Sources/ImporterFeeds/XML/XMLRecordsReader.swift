import CLibXML2
import Foundation
import ImporterModel

/// Reads the elements at a path of an XML document as records, streaming through libxml2's
/// `xmlTextReader` fed from a `ByteSource` (files, pipes and stdin alike). Memory stays bounded:
/// the reader frees nodes as it moves on, subtrees outside the records are skipped, and no DOM is
/// ever built or expanded.
///
/// Records are the elements at `mapping.records` (`/fireballs/fireball`, required), with the
/// namespace prefixes of `mapping.namespaces` (see `XMLPath`: an unprefixed step matches an
/// element in no namespace). A field is a child element of the record (`date`), a nested one
/// (`location/lat`), or an attribute of the record or of such an element (`@date`,
/// `location/@lat`). Every requested field counts as supplied; a field missing from a record is
/// absent (the mapper reads NULL). An element's value is the concatenation of its text and CDATA
/// children, references decoded (`""` when empty); `xsi:nil="true"` makes it null, and child
/// elements make it `.composite` (the mapper rejects the record). A field met twice in one record:
/// the last one wins.
///
/// Security: a DOCTYPE is refused before libxml2 parses it (`XMLPrologGuard`), and the parser runs
/// with `parserOptions`: no network, no entity substitution, no DTD loading, defaulting or
/// validation, default size limits. No entity is expanded and no external resource is read.
///
/// Positions: an element that starts a line (after indentation) gets its exact line and column;
/// otherwise libxml2's line of its start tag and column 0 (unknown): libxml2's reader keeps no
/// columns, and its parser position runs up to a chunk ahead of the current node.
public final class XMLRecordsReader: RecordReader {
    /// `XML_PARSE_NONET | XML_PARSE_BIG_LINES`; never `NOENT`, `DTDLOAD`, `DTDATTR`, `DTDVALID`
    /// or `HUGE`.
    static let parserOptions = Int32(bitPattern: XML_PARSE_NONET.rawValue | XML_PARSE_BIG_LINES.rawValue)
    static let dtdRefusal = "DTDs and entity declarations are not allowed (entity expansion and external entities are disabled)"
    static let xsiNamespace = "http://www.w3.org/2001/XMLSchema-instance"

    /// libxml2's global initialization, once per process, before any thread uses a reader.
    private static let libxml2: Void = xmlInitParser()

    private enum NodeType {
        static let element = Int32(XML_READER_TYPE_ELEMENT.rawValue)
        static let text = Int32(XML_READER_TYPE_TEXT.rawValue)
        static let cdata = Int32(XML_READER_TYPE_CDATA.rawValue)
        static let entityReference = Int32(XML_READER_TYPE_ENTITY_REFERENCE.rawValue)
        static let entity = Int32(XML_READER_TYPE_ENTITY.rawValue)
        static let documentType = Int32(XML_READER_TYPE_DOCUMENT_TYPE.rawValue)
        static let notation = Int32(XML_READER_TYPE_NOTATION.rawValue)
        static let whitespace = Int32(XML_READER_TYPE_WHITESPACE.rawValue)
        static let significantWhitespace = Int32(XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue)
        static let endElement = Int32(XML_READER_TYPE_END_ELEMENT.rawValue)
    }

    /// An open record or field element.
    private struct Frame {
        var node: Int
        var start: Int32
        var line: Int32
        var column: Int32
        var captures: Bool
        var isNil = false
        var composite = false
    }

    let input: XMLInput
    let reader: OpaquePointer
    private let namespaces: [String: String]
    private let recordPath: [XMLFieldTree.Name]
    private let xsiNamespace: UnsafePointer<xmlChar>
    private let nilName: UnsafePointer<xmlChar>
    private let maximumRecordSize: Int
    // The state below is touched for every node, by this reader only and never through overlapping
    // accesses: no dynamic exclusivity checks (they cost ~10 % of the reading time).
    @exclusivity(unchecked) private var tree = XMLFieldTree()
    @exclusivity(unchecked) private var frames: [Frame] = []
    private var finished = false
    /// The current node was read by `open` and is not handled yet.
    @exclusivity(unchecked) private var pending = false
    @exclusivity(unchecked) private var nodeType: Int32 = 0
    /// How many leading steps of the records path the open ancestors of the current node match.
    @exclusivity(unchecked) private var matchedDepth = 0
    private var recordsRead = 0
    @exclusivity(unchecked) var currentRecord: Int?
    /// Where the previous node ended, when it was white space: where the current node starts.
    @exclusivity(unchecked) private var positionBefore: (line: Int, column: Int)?
    @exclusivity(unchecked) private var whitespaceEnd: (line: Int, column: Int)?

    /// `readSize` caps the bytes libxml2 gets per read (small sizes exercise chunk boundaries in
    /// tests); `maximumRecordSize` caps the bytes of one record's values.
    public convenience init(source: ByteSource, mapping: FeedMapping, readSize: Int = 1 << 16, maximumRecordSize: Int = 16 << 20) throws(FeedError) {
        try self.init(source: source, mapping: mapping, readSize: readSize, maximumRecordSize: maximumRecordSize, guardingProlog: true)
    }

    /// `guardingProlog: false` lets libxml2 see a DTD: only for tests of the second line of defence.
    init(source: ByteSource, mapping: FeedMapping, readSize: Int, maximumRecordSize: Int, guardingProlog: Bool) throws(FeedError) {
        let start = SourceLocation(source: source.name, line: 1, column: 1)
        guard let records = mapping.records, !records.isEmpty else {
            throw FeedError.shape(start, "an xml feed needs 'records', the path of its record elements (such as /fireballs/fireball)")
        }
        let path: [XMLName]
        do throws(XMLPathError) {
            path = try XMLPath.records(records, namespaces: mapping.namespaces)
        } catch {
            throw FeedError.shape(start, error.message)
        }
        _ = Self.libxml2
        input = XMLInput(source: source, readSize: readSize, guardingProlog: guardingProlog)
        let context = Unmanaged.passUnretained(input).toOpaque()
        guard let reader = xmlReaderForIO({ context, buffer, length in
            guard let context, let buffer else { return -1 }
            return Unmanaged<XMLInput>.fromOpaque(context).takeUnretainedValue().read(into: buffer, capacity: Int(length))
        }, { _ in 0 }, context, nil, nil, Self.parserOptions) else {
            throw input.readError ?? FeedError.unreadable(path: source.name, reason: "libxml2 could not create a reader")
        }
        self.reader = reader
        xmlTextReaderSetStructuredErrorHandler(reader, { context, error in
            guard let context, let error else { return }
            Unmanaged<XMLInput>.fromOpaque(context).takeUnretainedValue().record(error.pointee)
        }, context)
        namespaces = mapping.namespaces
        self.maximumRecordSize = min(maximumRecordSize, Int(Int32.max)) // slots hold 32-bit offsets
        // Before `self` is complete: intern through the reader directly.
        let names = path.compactMap { Self.intern($0, in: reader) }
        guard names.count == path.count,
              let xsiNamespace = Self.intern(Self.xsiNamespace, in: reader), let nilName = Self.intern("nil", in: reader) else {
            xmlFreeTextReader(reader)
            throw Self.outOfMemory(source.name)
        }
        recordPath = names
        self.xsiNamespace = xsiNamespace
        self.nilName = nilName
    }

    deinit { xmlFreeTextReader(reader) }

    var sourceName: String { input.source.name }
    public var progress: (read: Int, total: Int?) { (input.source.bytesRead, input.source.totalBytes) }

    public func open(requesting fields: [String]) throws(FeedError) -> FeedHeader {
        var addresses: [(elements: [XMLFieldTree.Name], attribute: XMLFieldTree.Name?)] = []
        for field in fields {
            let address: (elements: [XMLName], attribute: XMLName?)
            do throws(XMLPathError) {
                address = try XMLPath.field(field, namespaces: namespaces)
            } catch {
                throw FeedError.shape(SourceLocation(source: sourceName, line: 1, column: 1), error.message)
            }
            var elements: [XMLFieldTree.Name] = []
            for name in address.elements { elements.append(try intern(name)) }
            addresses.append((elements, try address.attribute.map { name throws(FeedError) in try intern(name) }))
        }
        tree = XMLFieldTree(fields: addresses)
        // Read up to the root element, so that a refused, empty or malformed prolog fails here.
        while !pending, try advance() {
            if nodeType == NodeType.element { pending = true }
        }
        return FeedHeader(supplied: Array(repeating: true, count: fields.count))
    }

    public func next(into record: inout RawRecord) throws(FeedError) -> Bool {
        guard !finished else { return false }
        record.reset()
        var skip = false
        while try advance(skippingSubtree: skip) {
            skip = false
            guard nodeType == NodeType.element else { continue }
            let depth = Int(xmlTextReaderDepth(reader))
            if depth < matchedDepth { matchedDepth = depth }
            guard depth == matchedDepth, currentElementIs(recordPath[depth]) else {
                skip = true
                continue
            }
            if depth == recordPath.count - 1 {
                try readRecord(into: &record)
                return true
            }
            if xmlTextReaderIsEmptyElement(reader) != 1 { matchedDepth += 1 }
        }
        finished = true
        return false
    }

    // MARK: - Records

    /// Reads the record element at the current node, through its end.
    private func readRecord(into record: inout RawRecord) throws(FeedError) {
        currentRecord = recordsRead
        defer { currentRecord = nil }
        let position = elementPosition()
        record.index = recordsRead
        record.line = position.line
        record.column = position.column
        frames.removeAll(keepingCapacity: true)
        try enter(0, into: &record)
        var skip = false
        while !frames.isEmpty {
            guard try advance(skippingSubtree: skip) else { throw failure() }
            skip = false
            switch nodeType {
            case NodeType.element:
                let parent = frames.count - 1
                if frames[parent].captures { frames[parent].composite = true }
                let child = matchingChild(of: frames[parent].node)
                if child < 0 {
                    skip = true
                } else {
                    try enter(child, into: &record)
                }
            case NodeType.text, NodeType.cdata, NodeType.whitespace, NodeType.significantWhitespace:
                let frame = frames[frames.count - 1]
                if frame.captures && !frame.composite { try appendValue(to: &record) }
            case NodeType.endElement:
                finish(frames.removeLast(), into: &record)
            default:
                break
            }
        }
        recordsRead += 1
    }

    /// Starts the record or field element at the current node: reads its attribute fields and
    /// `xsi:nil`, then opens its frame, or finishes it at once when it is empty.
    private func enter(_ node: Int, into record: inout RawRecord) throws(FeedError) {
        let position = elementPosition()
        let info = tree.nodes[node]
        var frame = Frame(node: node, start: 0, line: Int32(truncatingIfNeeded: position.line),
                          column: Int32(truncatingIfNeeded: position.column), captures: info.capturesText)
        if (!info.attributes.isEmpty || frame.captures) && xmlTextReaderHasAttributes(reader) == 1 {
            try readAttributes(info.attributes, frame: &frame, into: &record)
        }
        frame.start = Int32(record.bytes.count)
        if xmlTextReaderIsEmptyElement(reader) == 1 {
            finish(frame, into: &record)
        } else {
            frames.append(frame)
        }
    }

    private func readAttributes(_ attributes: Range<Int>, frame: inout Frame, into record: inout RawRecord) throws(FeedError) {
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
            for index in attributes {
                let attribute = tree.attributes[index]
                guard xmlStrEqual(localName, attribute.name.localName) == 1 else { continue }
                if !namespaceRead {
                    namespace = xmlTextReaderConstNamespaceUri(reader)
                    namespaceRead = true
                }
                guard xmlStrEqual(namespace, attribute.name.namespace) == 1 else { continue }
                let start = Int32(record.bytes.count)
                try appendValue(to: &record)
                record.slots[attribute.slot] = RawSlot(kind: .string, start: start, count: Int32(record.bytes.count) - start,
                                                       line: frame.line, column: frame.column)
            }
        }
    }

    /// Closes a field element: its text (or null, or composite) goes to its slots.
    private func finish(_ frame: Frame, into record: inout RawRecord) {
        guard frame.captures else { return }
        let kind: RawKind = frame.isNil ? .null : frame.composite ? .composite : .string
        let slot = RawSlot(kind: kind, start: frame.start, count: Int32(record.bytes.count) - frame.start,
                           line: frame.line, column: frame.column)
        for index in tree.nodes[frame.node].textSlots { record.slots[tree.textSlots[index]] = slot }
    }

    /// The child of `node` in the field tree that the current element is, or -1.
    @inline(__always)
    private func matchingChild(of node: Int) -> Int {
        let children = tree.nodes[node].children
        guard !children.isEmpty else { return -1 }
        let localName = xmlTextReaderConstLocalName(reader)
        var namespace: UnsafePointer<xmlChar>?
        var namespaceRead = false
        for index in children {
            let child = tree.children[index]
            guard xmlStrEqual(localName, child.name.localName) == 1 else { continue }
            if !namespaceRead {
                namespace = xmlTextReaderConstNamespaceUri(reader)
                namespaceRead = true
            }
            if xmlStrEqual(namespace, child.name.namespace) == 1 { return child.node }
        }
        return -1
    }

    @inline(__always)
    private func currentElementIs(_ name: XMLFieldTree.Name) -> Bool {
        xmlStrEqual(xmlTextReaderConstLocalName(reader), name.localName) == 1
            && xmlStrEqual(xmlTextReaderConstNamespaceUri(reader), name.namespace) == 1
    }

    /// Appends the current node's value (text, CDATA, attribute) to the record's bytes.
    @inline(__always)
    private func appendValue(to record: inout RawRecord) throws(FeedError) {
        guard let value = xmlTextReaderConstValue(reader) else { return }
        record.bytes.append(contentsOf: UnsafeBufferPointer(start: value, count: Int(xmlStrlen(value))))
        if record.bytes.count > maximumRecordSize {
            throw FeedError.recordTooLarge(location(line: record.line, column: record.column), limit: maximumRecordSize)
        }
    }

    // MARK: - Nodes

    /// Moves to the next node (past the current element's subtree when `skip`); false at the end
    /// of the document. Throws what the guard, the source or libxml2 met.
    private func advance(skippingSubtree skip: Bool = false) throws(FeedError) -> Bool {
        if pending {
            pending = false
            return true
        }
        let result = skip ? xmlTextReaderNext(reader) : xmlTextReaderRead(reader)
        if input.failed || result < 0 { throw failure() }
        guard result == 1 else { return false }
        nodeType = xmlTextReaderNodeType(reader)
        positionBefore = whitespaceEnd
        whitespaceEnd = nil
        switch nodeType {
        case NodeType.whitespace, NodeType.significantWhitespace:
            whitespaceEnd = endOfWhitespace()
        case NodeType.documentType, NodeType.entityReference, NodeType.entity, NodeType.notation:
            // Unreachable behind the prolog guard; kept as a second line of defence.
            throw FeedError.shape(location(line: nodeLine(), column: 0), Self.dtdRefusal)
        default:
            break
        }
        return true
    }

    /// Where the current white space node ends: its line, and the column after it when it holds a
    /// line break (0 when it does not: the column is unknown).
    private func endOfWhitespace() -> (line: Int, column: Int)? {
        guard let value = xmlTextReaderConstValue(reader) else { return nil }
        let count = Int(xmlStrlen(value))
        var index = count - 1
        while index >= 0 && value[index] != 0x0A { index -= 1 }
        return (nodeLine(), index >= 0 ? count - index : 0)
    }

    private func elementPosition() -> (line: Int, column: Int) {
        positionBefore ?? (nodeLine(), 0)
    }

    /// The current node's line (libxml2's line of the end of a start tag or text).
    private func nodeLine() -> Int {
        if let node = xmlTextReaderCurrentNode(reader) {
            let line = xmlGetLineNo(node)
            if line > 0 { return line }
        }
        return Int(xmlTextReaderGetParserLineNumber(reader))
    }
}
