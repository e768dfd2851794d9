/// How far a records path got through one document, to explain a path that matched no record.
///
/// A document whose records element exists but holds no record is a valid empty feed, unless
/// elements of the record's name sit at another depth (a registry of registries). Anything else
/// that yields no record is an input error (`explanation`): the root element is not the path's
/// first step (typically a default namespace the path does not name), or a deeper step matched
/// nothing, or the records element holds elements of the record's local name in another namespace. The message names what the document has, with namespaces, and the path that would
/// match.
struct XMLRecordsSearch {
    /// How the document's root element is written.
    struct Root {
        var name: XMLName
        var prefix: String?
        /// The default namespace declared on the root element.
        var defaultNamespace: String?
    }

    static let seenLimit = 5

    let text: String
    let steps: [XMLName]
    let declared: [String: String]
    var root: Root?
    /// How many leading steps some element of the document matched.
    private(set) var deepest = 0
    /// Distinct names of the child elements seen under an element at the deepest match (a few).
    private(set) var seen: [XMLName] = []
    private(set) var moreSeen = false
    /// The first element named as the record's step found at another depth (line, 0-based depth).
    var elsewhere: (line: Int, depth: Int)?

    init(text: String, steps: [XMLName], declared: [String: String]) {
        self.text = text
        self.steps = steps
        self.declared = declared
    }

    /// An element at `depth` matched its step.
    mutating func matched(depth: Int) {
        guard depth + 1 > deepest else { return }
        deepest = depth + 1
        seen.removeAll()
        moreSeen = false
    }

    /// Whether an element at `depth` that does not match its step is worth naming.
    func wants(depth: Int) -> Bool { depth > 0 && depth == deepest && !moreSeen }

    mutating func missed(_ name: XMLName) {
        guard !seen.contains(name) else { return }
        if seen.count < Self.seenLimit { seen.append(name) } else { moreSeen = true }
    }

    /// Why the document held no record, or nil when its records element exists and is empty.
    func explanation() -> String? {
        let head = "records '\(text)' matches no element: "
        guard let root else { return nil }
        guard deepest > 0 else { return head + rootMiss(root) }
        guard deepest < steps.count else { return nil }
        let step = steps[deepest]
        let nearMiss = seen.first { $0.localName == step.localName && $0.namespace != step.namespace }
        if let elsewhere, let record = steps.last {
            return head + "\(record) elements are \(elsewhere.depth) levels below the root (the first at line \(elsewhere.line)), "
                + "not \(steps.count - 1); give every element from the root down to them"
        }
        let misspelt = seen.first { Self.isNear($0.localName, step.localName) && $0.localName != step.localName }
        if deepest == steps.count - 1 && nearMiss == nil && misspelt == nil { return nil }
        let parent = "/" + written.prefix(deepest).joined(separator: "/")
        var message = head + "\(parent) holds no \(step)"
        if seen.isEmpty {
            message += " (it has no child elements)"
        } else {
            message += "; its child elements: " + seen.map(\.description).joined(separator: ", ") + (moreSeen ? ", …" : "")
        }
        if let nearMiss {
            message += "; \(nearMiss) is in another namespace: " + suggestion(from: deepest, to: nearMiss, prefix: prefix(for: nearMiss, written: nil))
        } else if let misspelt {
            message += "; did you mean \(misspelt.localName)?"
        }
        return message
    }

    /// For a document whose records element exists and holds other elements but no record (nil
    /// otherwise): what a warning says, since a path that stopped matching reads the same as an
    /// empty feed.
    func emptyNote() -> String? {
        guard root != nil, deepest == steps.count - 1, deepest > 0, !seen.isEmpty else { return nil }
        let parent = "/" + written.prefix(deepest).joined(separator: "/")
        return "records '\(text)' matched no element: \(parent) holds child elements "
            + seen.map(\.description).joined(separator: ", ") + (moreSeen ? ", …" : "")
            + " but no \(steps[deepest]) (an empty feed, or a path that no longer matches?)"
    }

    /// Whether `a` is a likely misspelling of `b`: equal but for case, or at most two edits apart
    /// (one for short names).
    static func isNear(_ a: String, _ b: String) -> Bool {
        let x = Array(a.lowercased()), y = Array(b.lowercased())
        if x == y { return true }
        let allowed = min(x.count, y.count) >= 5 ? 2 : 1
        guard abs(x.count - y.count) <= allowed, min(x.count, y.count) >= 3 else { return false }
        var previous = Array(0 ... y.count)
        for i in 1 ... x.count {
            var current = [i] + Array(repeating: 0, count: y.count)
            for j in 1 ... y.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[y.count] <= allowed
    }

    /// The root element is not the first step.
    private func rootMiss(_ root: Root) -> String {
        var message = "the root element is \(root.name) ("
        if let namespace = root.name.namespace {
            message += root.prefix.map { "prefix \($0) bound to \(namespace)" } ?? "default namespace \(namespace)"
        } else {
            message += "no namespace"
        }
        message += ")"
        let prefix = prefix(for: root.name, written: root.prefix)
        if root.name.localName == steps[0].localName {
            return message + "; " + suggestion(from: 0, to: root.name, prefix: prefix)
        }
        return message + "; a records path starts at the root element, such as /\(written(root.name, prefix: prefix))/…"
    }

    /// "declare it …, and write records: …": the steps from `index` on that are in the namespace of
    /// `steps[index]`, moved to the namespace of `found` (written with `prefix`).
    private func suggestion(from index: Int, to found: XMLName, prefix: String?) -> String {
        let from = steps[index].namespace
        var rewritten = written
        for position in index..<steps.count where steps[position].namespace == from {
            rewritten[position] = self.written(XMLName(namespace: found.namespace, localName: steps[position].localName), prefix: prefix)
        }
        let path = "/" + rewritten.joined(separator: "/")
        guard let namespace = found.namespace else { return "write records: \(path)" }
        var message = "write records: \(path)"
        if !declared.values.contains(namespace) {
            message = "declare it, e.g. namespaces: {\(prefix ?? "ns"): \"\(namespace)\"}, and " + message
        }
        if root?.defaultNamespace == namespace && declared[XMLPath.defaultPrefix] == nil && !declared.values.contains(namespace) {
            let predeclared = steps.indices.map { position in
                position >= index && steps[position].namespace == from ? "\(XMLPath.defaultPrefix):\(steps[position].localName)" : written[position]
            }
            message += " (or, with the predeclared prefix for the root's default namespace, /" + predeclared.joined(separator: "/") + ")"
        }
        return message
    }

    /// The steps as the path wrote them.
    private var written: [String] {
        let body = text.hasPrefix("/") ? text.dropFirst() : Substring(text)
        return body.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    }

    private func written(_ name: XMLName, prefix: String?) -> String {
        prefix.map { "\($0):\(name.localName)" } ?? name.localName
    }

    /// The prefix to suggest for `name`'s namespace: a declared one, else the document's own
    /// (`written`), else the first letter of the local name (`r` for registry) or `ns`, made unique.
    private func prefix(for name: XMLName, written: String?) -> String? {
        guard let namespace = name.namespace else { return nil }
        if let declaredPrefix = declared.filter({ $0.value == namespace }).keys.sorted().first { return declaredPrefix }
        if let written, declared[written] == nil, written != XMLPath.defaultPrefix { return written }
        let letter = name.localName.first.map { String($0).lowercased() } ?? "ns"
        let base = letter.allSatisfy({ $0.isASCII && $0.isLetter }) && letter != "x" ? letter : "ns"
        var candidate = base
        var number = 1
        while declared[candidate] != nil || candidate == XMLPath.defaultPrefix {
            number += 1
            candidate = "\(base)\(number)"
        }
        return candidate
    }
}
