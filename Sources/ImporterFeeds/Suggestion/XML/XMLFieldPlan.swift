/// How the child elements of XML records become fields, decided over all sampled records so that
/// every record is addressed alike.
///
/// A child element that occurs once is addressed by its path (`a:title`, `a:author/a:name`), its
/// attributes as `a:link/@href`. One that repeats within a record is either told apart by an
/// attribute whose values differ within every record and are few across them (Atom's
/// `<category label="Magnitude" term="…"/>` becomes `a:category[@label='Magnitude']/@term`), or,
/// when nothing tells the occurrences apart, one field holding them all (`repeated: all`). A
/// repeated child of the record with structure (attributes or elements of its own) and nothing
/// telling its occurrences apart is a list of child records instead (`children`): IANA's
/// `<xref type="rfc" data="rfc905"/>`; so is such a child of a child record (children of
/// children: a QuakeML origin's `<arrival>`s).
struct XMLFieldPlan {
    /// At most this many distinct values for an attribute that tells occurrences apart.
    static let maximumLabels = 12
    static let preferredLabels = ["label", "rel", "scheme", "name", "type", "key", "id"]

    /// Per group path (`a:category`, expanded names joined by `/`): what the sample shows.
    private struct Group {
        var maximumCount = 0
        /// Attributes (expanded names) whose values are distinct within every record and present on every element.
        var distinguishing: Set<String>?
        /// Per attribute, per value: in how many records it was met.
        var labels: [String: [String: Int]] = [:]
        var records = 0
        var attributeNames: [XMLName] = []
        var hasText = false
        var hasChildren = false
        /// The group path of the elements holding the group's (nil: the record).
        var parentPath: String?
    }

    private var groups: [String: Group] = [:]
    /// Per repeated group path: the attribute that tells its occurrences apart.
    private var labelAttribute: [String: XMLName] = [:]

    init(records: [XMLSampleElement]) {
        for record in records { survey(record, prefix: "") }
        for (path, group) in groups where group.maximumCount > 1 {
            // Labels name kinds of occurrence, so each recurs (in two records at least, given two).
            let candidates = group.attributeNames.filter { name in
                guard group.distinguishing?.contains(name.description) == true, let labels = group.labels[name.description] else { return false }
                return labels.count <= Self.maximumLabels && labels.allSatisfy { value, records in
                    !(value.contains("'") && value.contains("\"")) && (records > 1 || group.records < 2)
                }
            }
            let ranked = candidates.sorted { a, b in
                let ra = Self.preferredLabels.firstIndex(of: a.localName) ?? Self.preferredLabels.count
                let rb = Self.preferredLabels.firstIndex(of: b.localName) ?? Self.preferredLabels.count
                return (ra, a.localName) < (rb, b.localName)
            }
            if let chosen = ranked.first { labelAttribute[path] = chosen }
        }
    }

    /// Counts a record read past the sample: its groups' shapes, a group it alone has; the
    /// labels chosen from the sample stay.
    mutating func learn(_ record: XMLSampleElement) {
        survey(record, prefix: "")
    }

    private mutating func survey(_ element: XMLSampleElement, prefix: String) {
        for group in element.childGroups {
            guard let first = group.first else { continue }
            let path = prefix + first.name.description
            var stats = groups[path] ?? Group()
            stats.parentPath = prefix.isEmpty ? nil : String(prefix.dropLast())
            stats.maximumCount = max(stats.maximumCount, group.count)
            stats.records += 1
            var here = Set<String>()
            for member in group {
                stats.hasText = stats.hasText || member.hasText
                stats.hasChildren = stats.hasChildren || !member.children.isEmpty
                for attribute in member.attributes where !stats.attributeNames.contains(attribute.name) {
                    stats.attributeNames.append(attribute.name)
                }
                let names = Set(member.attributes.map(\.name.description))
                here = here.isEmpty && member === first ? names : here.intersection(names)
            }
            var distinguishing = stats.distinguishing ?? here
            distinguishing.formIntersection(here)
            for name in distinguishing {
                let values = group.compactMap { member in member.attributes.first { $0.name.description == name }?.value }
                if Set(values).count != values.count { distinguishing.remove(name) }
                for value in Set(values) { stats.labels[name, default: [:]][value, default: 0] += 1 }
            }
            stats.distinguishing = distinguishing
            groups[path] = stats
            for member in group { survey(member, prefix: path + "/") }
        }
    }

    /// The fields of one record.
    func fields(of record: XMLSampleElement, names: XMLPrefixes) -> [SampledField] {
        var fields: [SampledField] = []
        for attribute in record.attributes {
            fields.append(SampledField(address: "@" + names.qualified(attribute.name), words: [attribute.name.localName], values: [.string(attribute.value)]))
        }
        collect(record, path: "", address: "", words: [], names: names, into: &fields)
        return Self.merged(fields)
    }

    private func collect(_ element: XMLSampleElement, path: String, address: String, words: [String],
                         names: XMLPrefixes, into fields: inout [SampledField]) {
        for group in element.childGroups {
            guard let first = group.first else { continue }
            let groupPath = path + first.name.description
            if isChildGroup(groupPath) { continue }
            let step = address + names.qualified(first.name)
            let stats = groups[groupPath] ?? Group()
            let local = first.name.localName
            if let label = labelAttribute[groupPath] {
                labelled(group, label: label, stats: stats, step: step, words: words + [local], names: names, into: &fields)
                continue
            }
            for member in group {
                if stats.hasChildren {
                    collect(member, path: groupPath + "/", address: step + "/", words: words + [local], names: names, into: &fields)
                } else if stats.hasText {
                    fields.append(SampledField(address: step, words: words + [local], values: [.string(member.text)]))
                }
                for attribute in member.attributes {
                    fields.append(SampledField(address: step + "/@" + names.qualified(attribute.name), words: words + [local, attribute.name.localName],
                                               shortWords: 2, values: [.string(attribute.value)]))
                }
            }
        }
    }

    /// Whether the group `path` holds child records: repeated, with structure, its occurrences
    /// told apart by no label, held by the record or by the elements of a child group.
    private func isChildGroup(_ path: String) -> Bool {
        guard let stats = groups[path] else { return false }
        guard stats.maximumCount > 1 && labelAttribute[path] == nil && (!stats.attributeNames.isEmpty || stats.hasChildren) else { return false }
        return stats.parentPath.map(isChildGroup) ?? true
    }

    /// A list of child records: its local name, its path below its parent element (`/default:xref`),
    /// its group path in the plan, its elements and each one's fields, addressed below it.
    struct ChildList {
        var name: String
        var records: String
        var path: String
        var members: [XMLSampleElement]
        var elements: [[SampledField]]
    }

    /// The lists of child records of `element`, a record (`prefix` empty) or an element of the
    /// child group whose path `prefix` is (with its `/`).
    func children(of element: XMLSampleElement, prefix: String = "", names: XMLPrefixes) -> [ChildList] {
        element.childGroups.compactMap { group in
            guard let first = group.first, isChildGroup(prefix + first.name.description) else { return nil }
            let path = prefix + first.name.description
            let elements = group.map { member -> [SampledField] in
                var fields = member.attributes.map { attribute in
                    SampledField(address: "@" + names.qualified(attribute.name), words: [attribute.name.localName], values: [.string(attribute.value)])
                }
                collect(member, path: path + "/", address: "", words: [], names: names, into: &fields)
                return Self.merged(fields)
            }
            return ChildList(name: first.name.localName, records: "/" + names.qualified(first.name), path: path, members: group, elements: elements)
        }
    }

    /// Fields of repeated elements told apart by `label`: `a:category[@label='Magnitude']/@term`.
    private func labelled(_ group: [XMLSampleElement], label: XMLName, stats: Group, step: String, words: [String],
                          names: XMLPrefixes, into fields: inout [SampledField]) {
        let others = stats.attributeNames.filter { $0 != label }
        let single = (others.count == 1 && !stats.hasText) || (others.isEmpty && stats.hasText)
        for member in group {
            guard let value = member.attribute(label) else { continue }
            let quote = value.contains("'") ? "\"" : "'"
            let selected = "\(step)[@\(names.qualified(label))=\(quote)\(value)\(quote)]"
            if stats.hasText {
                fields.append(SampledField(address: selected, words: words + [value], values: [.string(member.text)]))
            }
            for other in others {
                let otherValue = member.attribute(other).map(SampleScalar.string) ?? .null
                fields.append(SampledField(address: selected + "/@" + names.qualified(other),
                                           words: words + [value] + (single ? [] : [other.localName]),
                                           shortWords: single ? 1 : 2, values: [otherValue]))
            }
        }
    }

    /// One field per address, its values in document order.
    static func merged(_ fields: [SampledField]) -> [SampledField] {
        var order: [String] = []
        var byAddress: [String: SampledField] = [:]
        for field in fields {
            if var existing = byAddress[field.address] {
                existing.values += field.values
                byAddress[field.address] = existing
            } else {
                order.append(field.address)
                byAddress[field.address] = field
            }
        }
        return order.compactMap { byAddress[$0] }
    }
}
