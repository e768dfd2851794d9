import CLibXML2

/// The requested fields as a tree of element steps below the record element (node 0), each node
/// with the slots its element's text fills and the attribute fields it holds.
///
/// Names are interned in the reader's dictionary, where libxml2 keeps the names it parses, so
/// matching with `xmlStrEqual` mostly compares pointers.
struct XMLFieldTree {
    struct Name {
        var localName: UnsafePointer<xmlChar>
        /// Nil for no namespace.
        var namespace: UnsafePointer<xmlChar>?

        func same(as other: Name) -> Bool {
            xmlStrEqual(localName, other.localName) == 1 && xmlStrEqual(namespace, other.namespace) == 1
        }
    }

    struct Node {
        var children: [(name: Name, node: Int)] = []
        /// Slots that receive the element's text.
        var textSlots: [Int] = []
        var attributes: [(name: Name, slot: Int)] = []
    }

    private(set) var nodes = [Node()]

    /// Adds the field at `elements` (then `attribute`, if any) that fills `slot`.
    mutating func insert(_ elements: [Name], attribute: Name?, slot: Int) {
        var node = 0
        for name in elements {
            if let existing = nodes[node].children.first(where: { $0.name.same(as: name) }) {
                node = existing.node
            } else {
                nodes.append(Node())
                nodes[node].children.append((name, nodes.count - 1))
                node = nodes.count - 1
            }
        }
        if let attribute {
            nodes[node].attributes.append((attribute, slot))
        } else {
            nodes[node].textSlots.append(slot)
        }
    }
}
