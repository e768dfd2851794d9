import CLibXML2
import Foundation
import ImporterModel

/// Reads the elements at a path of an XML document as records, streaming through libxml2's
/// `xmlTextReader` fed from a `ByteSource` (files, pipes and stdin alike). Memory stays bounded:
/// the reader frees nodes as it moves on, subtrees outside the records are skipped, and no DOM is
/// ever built or expanded.
///
/// Records are the elements at `mapping.records` (`/fireballs/fireball`, required), with the
/// namespace prefixes of `mapping.namespaces` and the predeclared `default` (see `XMLPath`: an
/// unprefixed step matches an element in no namespace). A records path that matches nothing in
/// the document is an input error naming the root element and its namespace (`XMLRecordsSearch`),
/// unless the records' parent element exists and is empty. A field is a child element of the
/// record (`date`), a nested one (`location/lat`), one chosen among repeated ones (`xref[2]`,
/// `category[@label='Magnitude']`), or an attribute of the record or of such an element (`@date`,
/// `location/@lat`). Every requested field counts as supplied; a field missing from a record is
/// absent. An element's value is the concatenation of its text and CDATA children, references
/// decoded (`""` when empty, `<a/>` included); `xsi:nil="true"` makes it null, and child elements
/// make it `.composite` (the mapper rejects the record). Every value goes through
/// `RawRecord.fill`, so a field met several times in one record is combined by its
/// `RepeatedValues` (rejected by default).
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
    static let libxml2: Void = xmlInitParser()

    enum NodeType {
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

    /// A field that is an attribute of an ancestor of the record element (`../@time`): read when
    /// the ancestor at `depth` starts, into `value`, until the next element at that depth.
    struct AncestorField {
        var slot: Int
        var depth: Int
        var name: XMLFieldTree.Name
        var value: (bytes: [UInt8], line: Int32, column: Int32)?
    }

    /// An open record or field element.
    struct Frame {
        /// The field-tree nodes the element is: `active[nodes]`.
        var nodes: Range<Int>
        var start: Int32
        var line: Int32
        var column: Int32
        var captures: Bool
        var isNil = false
        var composite = false
    }

    let input: XMLInput
    let reader: OpaquePointer
    let namespaces: [String: String]
    let recordsText: String
    /// Interned by `open`, once the root element tells the default namespace.
    var recordPath: [XMLFieldTree.Name] = []
    var search: XMLRecordsSearch
    var rootLocation: (line: Int, column: Int) = (1, 1)
    let xsiNamespace: UnsafePointer<xmlChar>
    let nilName: UnsafePointer<xmlChar>
    let maximumRecordSize: Int
    // The state below is touched for every node, by this reader only and never through overlapping
    // accesses: no dynamic exclusivity checks (they cost ~10 % of the reading time).
    @exclusivity(unchecked) var tree = XMLFieldTree()
    @exclusivity(unchecked) var frames: [Frame] = []
    /// The field-tree nodes of the open frames, each frame's after its parent's.
    @exclusivity(unchecked) var active: [Int] = []
    /// Per child of the field tree with a position: the elements of its name seen so far under
    /// the current element of its parent node.
    @exclusivity(unchecked) var counts: [Int32] = []
    var ancestors: [AncestorField] = []
    /// Child mode (`childPath` set before `open`): the children read from the current parent.
    public var childPath: String?
    /// With `childPath`: the paths of the elements between the record and the children's parents.
    public var childEnclosing: [String] = []
    var children: XMLChildRecords?
    /// Elements of the records no field reads (record mode only).
    var unmapped = XMLUnmappedElements()
    public var unmappedFields: [UnmappedField] { unmapped.fields }
    @exclusivity(unchecked) var childBuffer: [RawRecord] = []
    var parentRecord = RawRecord(slotCount: 0)
    /// The namespace prefixes `open` resolved (the document's default included).
    var resolvedNamespaces: [String: String] = [:]
    var finished = false
    /// Once read whole without a record: what a warning should say when the records element held
    /// other elements (`XMLRecordsSearch.emptyNote`).
    public private(set) var emptyNote: String?
    /// The current node was read by `open` and is not handled yet.
    @exclusivity(unchecked) var pending = false
    @exclusivity(unchecked) var nodeType: Int32 = 0
    /// How many leading steps of the records path the open ancestors of the current node match.
    @exclusivity(unchecked) var matchedDepth = 0
    var recordsRead = 0
    @exclusivity(unchecked) var currentRecord: Int?
    /// Where the previous node ended, when it was white space: where the current node starts.
    @exclusivity(unchecked) var positionBefore: (line: Int, column: Int)?
    @exclusivity(unchecked) var whitespaceEnd: (line: Int, column: Int)?

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
            path = try XMLPath.records(records, namespaces: XMLPath.namespaces(mapping.namespaces, documentDefault: nil))
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
        recordsText = records
        search = XMLRecordsSearch(text: records, steps: path, declared: mapping.namespaces)
        // Before `self` is complete: intern through the reader directly.
        guard let xsiNamespace = Self.intern(Self.xsiNamespace, in: reader), let nilName = Self.intern("nil", in: reader) else {
            xmlFreeTextReader(reader)
            throw Self.outOfMemory(source.name)
        }
        self.xsiNamespace = xsiNamespace
        self.nilName = nilName
    }

    deinit { xmlFreeTextReader(reader) }

    var sourceName: String { input.source.name }
    public var progress: (read: Int, total: Int?) { (input.source.bytesRead, input.source.totalBytes) }

    public func open(requesting fields: [String]) throws(FeedError) -> FeedHeader {
        if childPath != nil { return try openChildren(requesting: fields) }
        return try openFields(fields)
    }

    /// Opens the document for `fields` (nil: a slot this tree does not fill).
    func openFields(_ fields: [String?]) throws(FeedError) -> FeedHeader {
        // Read up to the root element, so that a refused, empty or malformed prolog fails here.
        while !pending, try advance() {
            if nodeType == NodeType.element { pending = true }
        }
        let root = pending ? currentRoot() : nil
        let namespaces = XMLPath.namespaces(self.namespaces, documentDefault: root?.defaultNamespace)
        let path: [XMLName]
        var addresses: [(up: Int, elements: [XMLStep], attribute: XMLName?)] = []
        do throws(XMLPathError) {
            path = try XMLPath.records(recordsText, namespaces: namespaces)
            for field in fields {
                if let field { addresses.append(try XMLPath.field(field, namespaces: namespaces)) } else { addresses.append((0, [], nil)) }
            }
        } catch {
            throw FeedError.shape(SourceLocation(source: sourceName, line: 1, column: 1), error.message)
        }
        recordPath = []
        for name in path { recordPath.append(try intern(name)) }
        search = XMLRecordsSearch(text: recordsText, steps: path, declared: self.namespaces)
        search.root = root
        var interned: [(elements: [XMLFieldTree.Step], attribute: XMLFieldTree.Name?)?] = []
        ancestors = []
        resolvedNamespaces = namespaces
        for (slot, address) in addresses.enumerated() {
            guard fields[slot] != nil else {
                interned.append(nil)
                continue
            }
            guard address.up > 0, let attribute = address.attribute else {
                interned.append(try intern(address))
                continue
            }
            guard address.up < recordPath.count else {
                throw FeedError.shape(SourceLocation(source: sourceName, line: 1, column: 1),
                                      XMLPath.aboveTheRoot(fields[slot] ?? "", up: address.up, records: recordPath.count))
            }
            ancestors.append(AncestorField(slot: slot, depth: recordPath.count - 1 - address.up, name: try intern(attribute)))
            interned.append(nil)
        }
        var childSteps: [XMLFieldTree.Step]?
        if let path = children?.paths.first { childSteps = try internChildren(path, namespaces: namespaces) }
        tree = XMLFieldTree(fields: interned, children: childSteps)
        counts = Array(repeating: 0, count: tree.children.count)
        return FeedHeader(supplied: Array(repeating: true, count: fields.count))
    }

    public func next(into record: inout RawRecord) throws(FeedError) -> Bool {
        if children != nil { return try nextChild(into: &record) }
        return try nextRecord(into: &record)
    }

    /// The next record element (in child mode, the next parent).
    func nextRecord(into record: inout RawRecord) throws(FeedError) -> Bool {
        guard !finished else { return false }
        record.reset()
        var skip = false
        while try advance(skippingSubtree: skip) {
            skip = false
            guard nodeType == NodeType.element else { continue }
            let depth = Int(xmlTextReaderDepth(reader))
            if depth < matchedDepth { matchedDepth = depth }
            guard depth == matchedDepth, currentElementIs(recordPath[depth]) else {
                if recordsRead == 0 {
                    if depth == matchedDepth && search.wants(depth: depth) { search.missed(currentName()) }
                    if search.elsewhere == nil, let last = recordPath.last, currentElementIs(last) {
                        search.elsewhere = (line: elementPosition().line, depth: depth)
                    }
                }
                // Until the first record, subtrees are searched for record elements at another depth.
                skip = recordsRead > 0 || search.elsewhere != nil
                continue
            }
            search.matched(depth: depth)
            if !ancestors.isEmpty && depth < recordPath.count - 1 { captureAncestors(at: depth) }
            if depth == recordPath.count - 1 {
                try readRecord(into: &record)
                return true
            }
            if xmlTextReaderIsEmptyElement(reader) != 1 { matchedDepth += 1 }
        }
        finished = true
        if recordsRead == 0, let explanation = search.explanation() {
            throw FeedError.shape(SourceLocation(source: sourceName, line: rootLocation.line, column: rootLocation.column), explanation)
        }
        if recordsRead == 0 { emptyNote = search.emptyNote() }
        return false
    }

    /// The root element (the current node): its name, prefix and default namespace.
    func currentRoot() -> XMLRecordsSearch.Root {
        rootLocation = elementPosition()
        let name = currentName()
        let prefix = xmlTextReaderConstPrefix(reader).map { String(cString: $0) }
        var defaultNamespace = prefix == nil ? name.namespace : nil
        if prefix != nil && xmlTextReaderHasAttributes(reader) == 1 {
            while xmlTextReaderMoveToNextAttribute(reader) == 1 {
                guard let attribute = xmlTextReaderConstName(reader), String(cString: attribute) == "xmlns" else { continue }
                let uri = xmlTextReaderConstValue(reader).map { String(cString: $0) } ?? ""
                defaultNamespace = uri.isEmpty ? nil : uri
            }
            xmlTextReaderMoveToElement(reader)
        }
        return XMLRecordsSearch.Root(name: name, prefix: prefix, defaultNamespace: defaultNamespace)
    }

    /// The current element's expanded name, as strings (for messages).
    func currentName() -> XMLName {
        XMLName(namespace: xmlTextReaderConstNamespaceUri(reader).map { String(cString: $0) },
                localName: xmlTextReaderConstLocalName(reader).map { String(cString: $0) } ?? "")
    }

    // MARK: - Nodes

    /// Moves to the next node (past the current element's subtree when `skip`); false at the end
    /// of the document. Throws what the guard, the source or libxml2 met.
    func advance(skippingSubtree skip: Bool = false) throws(FeedError) -> Bool {
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
    func endOfWhitespace() -> (line: Int, column: Int)? {
        guard let value = xmlTextReaderConstValue(reader) else { return nil }
        let count = Int(xmlStrlen(value))
        var index = count - 1
        while index >= 0 && value[index] != 0x0A { index -= 1 }
        return (nodeLine(), index >= 0 ? count - index : 0)
    }

    func elementPosition() -> (line: Int, column: Int) {
        positionBefore ?? (nodeLine(), 0)
    }

    /// The current node's line (libxml2's line of the end of a start tag or text).
    func nodeLine() -> Int {
        if let node = xmlTextReaderCurrentNode(reader) {
            let line = xmlGetLineNo(node)
            if line > 0 { return line }
        }
        return Int(xmlTextReaderGetParserLineNumber(reader))
    }
}
