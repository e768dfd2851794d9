import CLibXML2

/// An element as the XML sampler keeps it: name, attributes, text and the kept children.
final class XMLSampleElement {
    /// Texts longer than this are cut (a sample needs no more).
    static let maximumText = 4096

    let name: XMLName
    var attributes: [(name: XMLName, value: String)] = []
    var children: [XMLSampleElement] = []
    /// The element's own text and CDATA, concatenated.
    var text = ""
    /// Children per expanded name, counting those not kept.
    var childCounts: [String: Int] = [:]

    init(name: XMLName) {
        self.name = name
    }

    func attribute(_ name: XMLName) -> String? {
        attributes.first { $0.name == name }?.value
    }

    var hasText: Bool { text.contains { !$0.isWhitespace } }

    func appendText(_ more: String) {
        guard text.utf8.count < Self.maximumText else { return }
        text += more
    }

    /// The children grouped by name, in the order each name first appears.
    var childGroups: [[XMLSampleElement]] {
        var order: [String] = []
        var groups: [String: [XMLSampleElement]] = [:]
        for child in children {
            let key = child.name.description
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(child)
        }
        return order.compactMap { groups[$0] }
    }
}

extension XMLSampleElement {
    /// The element `reader` stands on, with its attributes (namespace declarations aside);
    /// `note` sees the prefix and namespace of the element and of each attribute.
    static func current(_ reader: OpaquePointer, note: (UnsafePointer<xmlChar>?, String?) -> Void) -> XMLSampleElement {
        let namespace = string(xmlTextReaderConstNamespaceUri(reader))
        note(xmlTextReaderConstPrefix(reader), namespace)
        let element = XMLSampleElement(name: XMLName(namespace: namespace, localName: string(xmlTextReaderConstLocalName(reader)) ?? ""))
        guard xmlTextReaderHasAttributes(reader) == 1 else { return element }
        defer { xmlTextReaderMoveToElement(reader) }
        while xmlTextReaderMoveToNextAttribute(reader) == 1 {
            let namespace = string(xmlTextReaderConstNamespaceUri(reader))
            if namespace == XMLSampler.xmlnsNamespace || (namespace == nil && string(xmlTextReaderConstName(reader)) == "xmlns") { continue }
            note(xmlTextReaderConstPrefix(reader), namespace)
            let name = XMLName(namespace: namespace, localName: string(xmlTextReaderConstLocalName(reader)) ?? "")
            element.attributes.append((name, string(xmlTextReaderConstValue(reader)) ?? ""))
        }
        return element
    }

    static func string(_ pointer: UnsafePointer<xmlChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}
