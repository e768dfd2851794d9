import CLibXML2

/// The requested fields as a tree of element steps below the record element (node 0), each node
/// with the slots its element's text fills and the attribute fields it holds.
///
/// Steps that differ only by their predicate (`xref`, `xref[2]`, `xref[@type='rfc']`) are distinct
/// nodes: one element can be several nodes at once, and the reader keeps them all.
///
/// Flat arrays of plain values, so the per-node loop copies no array (no retain, no release).
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

    /// An element step with its predicate, interned.
    struct Step {
        var name: Name
        /// The 1-based position among the elements of `name` under one parent; 0 for any.
        var position: Int32 = 0
        /// `[@attribute='value']`: the attribute and its value, or nil.
        var attribute: Name?
        var value: UnsafePointer<xmlChar>?

        func same(as other: Step) -> Bool {
            guard name.same(as: other.name), position == other.position else { return false }
            switch (attribute, other.attribute) {
            case (nil, nil): return true
            case (let mine?, let theirs?): return mine.same(as: theirs) && xmlStrEqual(value, other.value) == 1
            default: return false
            }
        }
    }

    /// One element step: ranges into the flat arrays.
    struct Node {
        var children: Range<Int>
        /// Slots that receive the element's text.
        var textSlots: Range<Int>
        var attributes: Range<Int>
        /// Some child has a position: entering this node's element restarts their counts.
        var countsChildren: Bool
        /// Its elements are a relationship's children (child mode: `XMLChildRecords`).
        var holdsChildren = false
        var capturesText: Bool { !textSlots.isEmpty }
    }

    struct Child {
        var step: Step
        var node: Int
    }

    struct Attribute {
        var name: Name
        var slot: Int
    }

    private(set) var nodes: [Node] = []
    private(set) var children: [Child] = []
    private(set) var textSlots: [Int] = []
    private(set) var attributes: [Attribute] = []
    /// Whether a node holds children (`children` was given).
    private(set) var hasChildren = false

    /// The tree of `fields`: each the element steps below the record, then an optional attribute;
    /// nil for a slot read elsewhere (an ancestor's attribute). `children`: the element steps of a
    /// relationship's children, whose node is marked.
    init(fields: [(elements: [Step], attribute: Name?)?] = [], children childPath: [Step]? = nil) {
        struct Building {
            var children: [Child] = []
            var textSlots: [Int] = []
            var attributes: [Attribute] = []
        }
        var building = [Building()]
        var marked: Int?
        for (slot, field) in (fields + [childPath.map { ($0, nil) }]).enumerated() {
            guard let field else { continue }
            var node = 0
            for step in field.elements {
                if let existing = building[node].children.first(where: { $0.step.same(as: step) }) {
                    node = existing.node
                } else {
                    building.append(Building())
                    building[node].children.append(Child(step: step, node: building.count - 1))
                    node = building.count - 1
                }
            }
            if slot == fields.count {
                marked = node
            } else if let attribute = field.attribute {
                building[node].attributes.append(Attribute(name: attribute, slot: slot))
            } else {
                building[node].textSlots.append(slot)
            }
        }
        for node in building {
            nodes.append(Node(children: children.count..<children.count + node.children.count,
                              textSlots: textSlots.count..<textSlots.count + node.textSlots.count,
                              attributes: attributes.count..<attributes.count + node.attributes.count,
                              countsChildren: node.children.contains { $0.step.position > 0 }))
            children += node.children
            textSlots += node.textSlots
            attributes += node.attributes
        }
        if let marked {
            nodes[marked].holdsChildren = true
            hasChildren = true
        }
    }
}
