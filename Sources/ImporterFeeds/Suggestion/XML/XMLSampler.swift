import CLibXML2
import ImporterModel

/// Samples an XML document: reads it into a pruned tree (at most `limit` children of one name
/// under any element, so memory is bounded by the sample), finds the record elements (the
/// shallowest repeated element with structure: `/a:feed/a:entry`) and flattens each record.
///
/// Reads through `XMLRecordsReader`'s libxml2 reader, so the prolog guard (no DTD), the parser
/// options and the located errors are exactly the importer's. Reading stops once `limit` elements
/// of one name were met under the root or one level below: the records are then known. A document
/// with more records than the sample is read a second time, to its end, for the types and
/// presence of the rest (`XMLTailSampler`, one record in memory at a time).
final class XMLSampler {
    static let xmlnsNamespace = "http://www.w3.org/2000/xmlns/"
    private let path: String
    private let reader: XMLRecordsReader
    /// Namespace URI → the prefix the document used for it (nil: used as default namespace only).
    private var prefixes: [String: String?] = [:]
    private var uriOrder: [String] = []

    init(path: String) throws(FeedError) {
        self.path = path
        reader = try XMLRecordsReader(source: ByteSource(path: path), mapping: Self.mapping)
    }

    /// The mapping the sampling reader is made with: the reader's guards, none of its selection.
    static let mapping = FeedMapping(name: "sample", entity: "Sample", format: .xml, records: "/sample", fields: [])

    func sample(limit: Int) throws(FeedError) -> FeedSample {
        guard let root = try readTree(limit: limit) else {
            throw FeedError.shape(SourceLocation(source: reader.sourceName, line: 1, column: 1), "the document has no root element")
        }
        let names = XMLPrefixes(used: prefixes, order: uriOrder, rootName: root.name.localName)
        guard let (path, records) = XMLRecordsChoice.choose(root: root) else {
            throw FeedError.shape(SourceLocation(source: reader.sourceName, line: 1, column: 1),
                                  "no records: the root element <\(root.name.localName)> has no repeated child elements")
        }
        var sample = FeedSample(format: .xml, records: "/" + path.map(names.qualified).joined(separator: "/"))
        sample.namespaces = names.declarations
        sample.recordNoun = path.last.map { JSONSampler.singular($0.localName) }
        var plan = XMLFieldPlan(records: Array(records.prefix(limit)))
        sample.recordFields = records.prefix(limit).map { plan.fields(of: $0, names: names) }
        Self.collectChildren(of: Array(records.prefix(limit)), prefix: "", plan: plan, names: names, into: &sample.children)
        if records.count >= limit {
            let tail = XMLTailSampler(records: path, sampled: limit)
            try tail.read(XMLRecordsReader(source: ByteSource(path: self.path), mapping: Self.mapping), plan: &plan, names: names, into: &sample)
        }
        return sample
    }

    /// The child lists of `elements` (the records, or the elements of the child group at `prefix`),
    /// each element's list a sample of its own, with the lists of its elements in turn.
    private static func collectChildren(of elements: [XMLSampleElement], prefix: String, plan: XMLFieldPlan, names: XMLPrefixes,
                                        into children: inout [(name: String, parents: [FeedSample])]) {
        for element in elements {
            for child in plan.children(of: element, prefix: prefix, names: names) {
                var parent = FeedSample(format: .xml, records: child.records)
                (parent.recordNoun, parent.namespaces, parent.recordFields) = (child.name, names.declarations, child.elements)
                collectChildren(of: child.members, prefix: child.path + "/", plan: plan, names: names, into: &parent.children)
                let list = child.name.hasSuffix("s") ? child.name : child.name + "s"
                if let index = children.firstIndex(where: { $0.name == list }) {
                    children[index].parents.append(parent)
                } else {
                    children.append((list, [parent]))
                }
            }
        }
    }

    private func note(prefix: UnsafePointer<xmlChar>?, namespace: String?) {
        guard let namespace, namespace != XMLPath.xmlNamespace else { return }
        let text = prefix.map { String(cString: $0) }
        if let known = prefixes[namespace] {
            if known == nil, let text { prefixes[namespace] = text }
        } else {
            prefixes[namespace] = text
            uriOrder.append(namespace)
        }
    }

    /// The document as a pruned tree; nil when it has no root element.
    private func readTree(limit: Int) throws(FeedError) -> XMLSampleElement? {
        let r = reader.reader
        var stack: [XMLSampleElement] = []
        var root: XMLSampleElement?
        var skip = false
        while true {
            let result = skip ? xmlTextReaderNext(r) : xmlTextReaderRead(r)
            skip = false
            if result < 0 || reader.input.failed { throw reader.failure() }
            if result == 0 { break }
            switch xmlTextReaderNodeType(r) {
            case Int32(XML_READER_TYPE_ELEMENT.rawValue):
                let name = XMLName(namespace: XMLSampleElement.string(xmlTextReaderConstNamespaceUri(r)),
                                   localName: XMLSampleElement.string(xmlTextReaderConstLocalName(r)) ?? "")
                let isEmpty = xmlTextReaderIsEmptyElement(r) == 1
                if let parent = stack.last {
                    let count = parent.childCounts[name.description, default: 0] + 1
                    parent.childCounts[name.description] = count
                    if count > limit {
                        // Enough of one element near the root: those are the records (a few
                        // more are allowed so that two <link>s do not end a one-record sample).
                        if stack.count <= 2 && count > max(limit, 8) { return root }
                        skip = !isEmpty
                        continue
                    }
                }
                let element = XMLSampleElement.current(r) { prefix, namespace in note(prefix: prefix, namespace: namespace) }
                if let parent = stack.last { parent.children.append(element) } else { root = element }
                if !isEmpty { stack.append(element) }
            case Int32(XML_READER_TYPE_END_ELEMENT.rawValue):
                _ = stack.popLast()
            case Int32(XML_READER_TYPE_TEXT.rawValue), Int32(XML_READER_TYPE_CDATA.rawValue):
                if let value = XMLSampleElement.string(xmlTextReaderConstValue(r)) { stack.last?.appendText(value) }
            default:
                break
            }
        }
        return root
    }
}
