/// The namespace prefixes a suggested XML mapping declares: the document's own, and a made-up one
/// for a namespace the document only uses as its default (`a` for Atom, else the root's initial).
struct XMLPrefixes {
    /// Namespace URI → prefix.
    private(set) var byURI: [String: String] = [:]

    static let wellKnown = ["http://www.w3.org/2005/Atom": "a", "http://purl.org/rss/1.0/": "rss",
                            "http://www.w3.org/1999/02/22-rdf-syntax-ns#": "rdf"]

    init(used: [String: String?], order: [String], rootName: String) {
        var taken = Set(used.values.compactMap { $0 })
        taken.insert("xml")
        for uri in order {
            if let prefix = used[uri] ?? nil {
                byURI[uri] = prefix
                continue
            }
            var base = Self.wellKnown[uri] ?? String(rootName.lowercased().filter { $0.isASCII && $0.isLetter }.prefix(1))
            if base.isEmpty { base = "d" }
            var candidate = base
            var number = 2
            while taken.contains(candidate) {
                candidate = base + String(number)
                number += 1
            }
            taken.insert(candidate)
            byURI[uri] = candidate
        }
    }

    /// The mapping's `namespaces`.
    var declarations: [String: String] {
        Dictionary(uniqueKeysWithValues: byURI.map { ($0.value, $0.key) })
    }

    /// `prefix:local`, or `local` for a name in no namespace.
    func qualified(_ name: XMLName) -> String {
        guard let namespace = name.namespace, let prefix = byURI[namespace] else { return name.localName }
        return prefix + ":" + name.localName
    }
}

/// Which elements of a document are its records: the shallowest element that repeats under its
/// parent, those with child elements first, then the most numerous (`/feed/entry` rather than
/// `/feed/link`); a single child of the root with child elements when nothing repeats.
enum XMLRecordsChoice {
    static func choose(root: XMLSampleElement) -> (path: [XMLName], records: [XMLSampleElement])? {
        var best: (rank: (Int, Int, Int), path: [XMLName])?
        var level: [([XMLName], XMLSampleElement)] = [([root.name], root)]
        for depth in 1...4 where best == nil {
            var next: [([XMLName], XMLSampleElement)] = []
            for (path, element) in level {
                for group in element.childGroups {
                    guard let first = group.first else { continue }
                    let count = element.childCounts[first.name.description] ?? group.count
                    let structured = group.contains { !$0.children.isEmpty }
                    let rank = (depth, structured ? 0 : 1, -count)
                    if count > 1, best.map({ rank < $0.rank }) ?? true { best = (rank, path + [first.name]) }
                    next += group.map { (path + [first.name], $0) }
                }
            }
            level = next
        }
        if best == nil, let single = root.children.first(where: { !$0.children.isEmpty }) {
            best = ((0, 0, 0), [root.name, single.name])
        }
        guard let path = best?.path else { return nil }
        return (path, elements(at: path, in: root))
    }

    /// The kept elements at `path` (its first step is the root).
    static func elements(at path: [XMLName], in root: XMLSampleElement) -> [XMLSampleElement] {
        var current = [root]
        for step in path.dropFirst() {
            current = current.flatMap { $0.children.filter { $0.name == step } }
        }
        return current
    }
}
