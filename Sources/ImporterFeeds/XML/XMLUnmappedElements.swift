import CLibXML2

/// The child elements of a record's requested elements that no field reads (`unmapped:`), each
/// noted once: by the interned name libxml2 gives it (a pointer compared, no string made) under
/// the field-tree node it appeared in.
struct XMLUnmappedElements {
    /// Per field-tree node, the local names met and not read.
    private var met: [Int: [UnsafePointer<xmlChar>]] = [:]
    /// The element path of each field-tree node below the record (`/author`), made on first use.
    private var paths: [String] = []
    private(set) var fields: [UnmappedField] = []

    /// Notes the current element of `reader`, a child of field-tree node `node` that matched none
    /// of its requested children, unless one of them has its name (read under a predicate).
    mutating func note(_ reader: OpaquePointer, under node: Int, in tree: XMLFieldTree, record: Int) {
        guard let name = xmlTextReaderConstLocalName(reader) else { return }
        if let known = met[node], known.contains(where: { $0 == name || xmlStrEqual($0, name) == 1 }) { return }
        met[node, default: []].append(name)
        for childIndex in tree.nodes[node].children where xmlStrEqual(tree.children[childIndex].step.name.localName, name) == 1 { return }
        if paths.isEmpty { paths = Self.paths(of: tree) }
        fields.append(UnmappedField(name: paths[node] + "/" + String(cString: name), record: record))
    }

    private static func paths(of tree: XMLFieldTree) -> [String] {
        var paths = Array(repeating: "", count: tree.nodes.count)
        for (index, node) in tree.nodes.enumerated() {
            for childIndex in node.children {
                let child = tree.children[childIndex]
                paths[child.node] = paths[index] + "/" + String(cString: child.step.name.localName)
            }
        }
        return paths
    }
}
