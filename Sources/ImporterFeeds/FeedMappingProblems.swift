import ImporterModel

/// Problems with a model's feed mappings that only the feed readers can find: the paths and
/// addresses of their formats. `importer model check` and every command that loads a model file
/// report them beside `Model.validate()`'s (`ModelFile.load(path:checks:)`), so that a bad path is
/// a model problem (78) found before any feed is read, not a feed error on the first run.
public enum FeedMappingProblems {
    /// Every problem, as `feed NAME: …` (`feed NAME: attribute 'A': …` for a field).
    public static func problems(in model: Model) -> [String] {
        model.feeds.flatMap { feed -> [String] in
            switch feed.format {
            case .xml: XMLPath.problems(in: feed)
            case .json, .ndjson: enclosingProblems(in: feed)
            default: []
            }
        }
    }
}

extension FeedMappingProblems {
    /// A JSON mapping's fields from objects enclosing the records (`../name`): none in NDJSON,
    /// and no more levels than the records pointer has.
    static func enclosingProblems(in feed: FeedMapping) -> [String] {
        let records = feed.records ?? ""
        let depth = feed.format == .ndjson ? nil : records.isEmpty || records == "/" ? 0 : JSONRecordsReader.referenceTokens(records).count
        return feed.fields.compactMap { field -> String? in
            guard let address = field.field, field.constant == nil, let (up, _) = JSONRecordsReader.enclosingMember(address) else { return nil }
            if let depth, up <= depth { return nil }
            return "feed \(feed.name): attribute '\(field.attribute)': " + JSONRecordsReader.enclosingProblem(address, up: up, records: depth)
        }
    }
}

extension XMLPath {
    /// The problems of an `xml` mapping: its namespace prefixes, its records path, and every field
    /// address (a sign's too): undeclared prefixes, bad predicates, attributes mid-path.
    static func problems(in feed: FeedMapping) -> [String] {
        var problems: [String] = []
        for prefix in feed.namespaces.keys.sorted() {
            if !isNCName(Substring(prefix)) {
                problems.append("feed \(feed.name): namespaces: '\(prefix)' is not a namespace prefix (an XML name without ':')")
            } else if prefix == "xmlns" || (prefix == "xml" && feed.namespaces[prefix] != xmlNamespace) {
                problems.append("feed \(feed.name): namespaces: the prefix '\(prefix)' is reserved by XML")
            }
        }
        let scope = namespaces(feed.namespaces, documentDefault: nil)
        var depth: Int?
        if let records = feed.records, !records.isEmpty {
            do throws(XMLPathError) {
                depth = try self.records(records, namespaces: scope).count
            } catch {
                problems.append("feed \(feed.name): \(error.message)")
            }
        } else {
            problems.append("feed \(feed.name): an xml feed needs 'records', the path of its record elements (such as /fireballs/fireball)")
        }
        for field in feed.fields {
            for address in [field.constant == nil ? field.field : nil, field.sign?.field].compactMap({ $0 }) {
                do throws(XMLPathError) {
                    let parsed = try self.field(address, namespaces: scope)
                    if let depth, parsed.up >= depth { throw XMLPathError(message: Self.aboveTheRoot(address, up: parsed.up, records: depth)) }
                } catch {
                    problems.append("feed \(feed.name): attribute '\(field.attribute)': \(error.message)")
                }
            }
        }
        return problems
    }

    /// Why `address` cannot be read: it climbs `up` levels from records `records` steps deep.
    static func aboveTheRoot(_ address: String, up: Int, records: Int) -> String {
        "field '\(address)' climbs \(up) level\(up == 1 ? "" : "s") from records \(records) element\(records == 1 ? "" : "s") deep: "
            + "the record's ancestors are the \(records - 1) element\(records == 2 ? "" : "s") above it on the records path"
    }
}
