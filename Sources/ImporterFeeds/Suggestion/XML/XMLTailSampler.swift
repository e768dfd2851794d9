import CLibXML2
import ImporterModel

/// Reads an XML document's records past its sample, one record in memory at a time, for the types
/// and presence of their fields (`FeedSample.observeTail`), as JSON, NDJSON and CSV are read.
///
/// The records are the elements at `records` (root first); the first `sampled` of them, in
/// document order, are the sample and are skipped. A field the sample did not have is planned
/// from the record it appears in (`XMLFieldPlan.learn`); the sample's labels stay as chosen.
struct XMLTailSampler {
    /// At most this many children of one name are kept in one record.
    static let maximumChildren = 1000

    let records: [XMLName]
    let sampled: Int

    init(records: [XMLName], sampled: Int) {
        self.records = records
        self.sampled = sampled
    }

    func read(_ reader: XMLRecordsReader, plan: inout XMLFieldPlan, names: XMLPrefixes, into sample: inout FeedSample) throws(FeedError) {
        let r = reader.reader
        var inside: [XMLSampleElement] = []
        var index = 0
        var skip = false
        while true {
            let result = skip ? xmlTextReaderNext(r) : xmlTextReaderRead(r)
            skip = false
            if result < 0 || reader.input.failed { throw reader.failure() }
            if result == 0 { return }
            switch xmlTextReaderNodeType(r) {
            case Int32(XML_READER_TYPE_ELEMENT.rawValue):
                let isEmpty = xmlTextReaderIsEmptyElement(r) == 1
                if let parent = inside.last {
                    skip = !keep(r, isEmpty: isEmpty, under: parent, inside: &inside)
                    continue
                }
                let depth = Int(xmlTextReaderDepth(r))
                let name = XMLName(namespace: XMLSampleElement.string(xmlTextReaderConstNamespaceUri(r)),
                                   localName: XMLSampleElement.string(xmlTextReaderConstLocalName(r)) ?? "")
                guard depth < records.count, name == records[depth] else { skip = !isEmpty; continue }
                guard depth == records.count - 1 else { continue }
                index += 1
                guard index > sampled else { skip = !isEmpty; continue }
                let record = XMLSampleElement.current(r) { _, _ in }
                if isEmpty { observe(record, plan: &plan, names: names, into: &sample) } else { inside = [record] }
            case Int32(XML_READER_TYPE_END_ELEMENT.rawValue):
                if let closed = inside.popLast(), inside.isEmpty { observe(closed, plan: &plan, names: names, into: &sample) }
            case Int32(XML_READER_TYPE_TEXT.rawValue), Int32(XML_READER_TYPE_CDATA.rawValue):
                if let value = XMLSampleElement.string(xmlTextReaderConstValue(r)) { inside.last?.appendText(value) }
            default:
                break
            }
        }
    }

    /// Adds the element `r` stands on to `parent` unless it holds enough of that name; false when
    /// it is not kept (its subtree is to be skipped).
    private func keep(_ r: OpaquePointer, isEmpty: Bool, under parent: XMLSampleElement, inside: inout [XMLSampleElement]) -> Bool {
        let element = XMLSampleElement.current(r) { _, _ in }
        let count = parent.childCounts[element.name.description, default: 0] + 1
        parent.childCounts[element.name.description] = count
        guard count <= Self.maximumChildren else { return isEmpty }
        parent.children.append(element)
        if !isEmpty { inside.append(element) }
        return true
    }

    private func observe(_ record: XMLSampleElement, plan: inout XMLFieldPlan, names: XMLPrefixes, into sample: inout FeedSample) {
        plan.learn(record)
        sample.observeTail(plan.fields(of: record, names: names))
    }
}
