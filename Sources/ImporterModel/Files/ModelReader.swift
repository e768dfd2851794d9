import Yams

/// Decodes a model file's YAML nodes, collecting every problem with its location, and remembering
/// where each entity, attribute, feed, field and view was declared (to place validation problems).
struct ModelReader {
    let name: String
    private(set) var problems: [String] = []
    /// "entity Fireball", "entity Fireball date", "feed api", "feed api latitude", "view v" → mark.
    var marks: [String: Mark] = [:]
    /// The attributes' `renamed-from:` and `default:`, as read.
    var evolutions: [AttributeEvolution] = []
    /// The entities' `renamed-from:`, by their new name.
    var renamedEntities: [String: String] = [:]

    init(name: String) {
        self.name = name
    }

    private func at(_ node: Node?) -> String {
        guard let mark = node?.mark else { return name }
        return "\(name):\(mark.line):\(mark.column)"
    }

    mutating func problem(_ node: Node?, _ path: String, _ message: String) {
        problems.append("\(at(node)): \(path): \(message)")
    }

    /// Places a problem from `Model.validate()` at the declaration it concerns.
    func locate(_ message: String) -> String {
        let words = message.split(separator: " ", maxSplits: 2).map(String.init)
        if words.count >= 2 {
            let kind = words[0]
            let subject = words[1].hasSuffix(":") ? String(words[1].dropLast()) : words[1]
            var member: String?
            if let open = message.firstIndex(of: "'"), let close = message[message.index(after: open)...].firstIndex(of: "'") {
                member = String(message[message.index(after: open)..<close])
            }
            if let member, let mark = marks["\(kind) \(subject) \(member)"] ?? marks["\(kind) \(subject)"] {
                return "\(name):\(mark.line):\(mark.column): \(message)"
            }
            if let mark = marks["\(kind) \(subject)"] { return "\(name):\(mark.line):\(mark.column): \(message)" }
        }
        return "\(name): \(message)"
    }

    // MARK: Node access

    mutating func mapping(_ node: Node, _ path: String, allowed: [String]) -> [String: Node]? {
        guard let mapping = node.mapping else {
            problem(node, path, "expected a mapping (key: value)")
            return nil
        }
        var result: [String: Node] = [:]
        for (key, value) in mapping {
            guard let text = key.string else { continue }
            if !allowed.contains(text) {
                problem(key, path, "unknown key '\(text)' (expected one of: \(allowed.joined(separator: ", ")))")
            }
            result[text] = value
        }
        return result
    }

    mutating func string(_ fields: [String: Node], _ key: String, _ path: String, required: Bool = false, in parent: Node) -> String? {
        guard let node = fields[key] else {
            if required { problem(parent, path, "missing '\(key)'") }
            return nil
        }
        guard node.scalar != nil, let text = node.string else {
            problem(node, "\(path).\(key)", "expected text")
            return nil
        }
        return text
    }

    mutating func bool(_ fields: [String: Node], _ key: String, _ path: String) -> Bool {
        guard let node = fields[key] else { return false }
        guard let value = node.bool else {
            problem(node, "\(path).\(key)", "expected true or false")
            return false
        }
        return value
    }

    /// A list of texts; a single text counts as a list of one.
    mutating func strings(_ fields: [String: Node], _ key: String, _ path: String) -> [String]? {
        guard let node = fields[key] else { return nil }
        if node.scalar != nil, let single = node.string { return [single] }
        guard let sequence = node.sequence else {
            problem(node, "\(path).\(key)", "expected a list of texts")
            return nil
        }
        return sequence.enumerated().compactMap { index, item in
            guard item.scalar != nil, let text = item.string else {
                problem(item, "\(path).\(key)[\(index)]", "expected text")
                return nil
            }
            return text
        }
    }

    mutating func list(_ fields: [String: Node], _ key: String, _ path: String) -> [Node] {
        guard let node = fields[key] else { return [] }
        guard let sequence = node.sequence else {
            problem(node, "\(path).\(key)", "expected a list")
            return []
        }
        return Array(sequence)
    }

    /// A scalar as a value: YAML's numbers, booleans (as 0/1) and null, else text.
    private func value(_ node: Node) -> Value? {
        guard node.scalar != nil else { return nil }
        switch Resolver.default.resolveTag(of: node) {
        case .null: return .null
        case .bool: return node.bool.map { .integer($0 ? 1 : 0) }
        case .int: return node.int.map { .integer(Int64($0)) }
        case .float: return node.float.map(Value.real)
        default: return node.string.map(Value.text)
        }
    }

    /// `repeated: reject|first|last|all|set|join` with `separator` (join only; default ", ").
    private mutating func repeated(_ fields: [String: Node], _ path: String, in parent: Node) -> RepeatedValues {
        let separator = string(fields, "separator", path, in: parent)
        let word = string(fields, "repeated", path, in: parent)
        if separator != nil && word != "join" {
            problem(fields["separator"], "\(path).separator", "separator applies to 'repeated: join' only")
        }
        switch word {
        case nil, "reject": return .reject
        case "first": return .first
        case "last": return .last
        case "all": return .all
        case "set": return .set
        case "join": return .join(separator ?? ", ")
        case let other?:
            problem(fields["repeated"], "\(path).repeated", "'\(other)' is not one of: reject, first, last, all, set, join")
            return .reject
        }
    }

    mutating func enumeration<T: RawRepresentable & CaseIterable>(_ fields: [String: Node], _ key: String, _ path: String, required: Bool, in parent: Node) -> T? where T.RawValue == String {
        guard let text = string(fields, key, path, required: required, in: parent) else { return nil }
        guard let value = T(rawValue: text) else {
            problem(fields[key], "\(path).\(key)", "'\(text)' is not one of: \(T.allCases.map(\.rawValue).joined(separator: ", "))")
            return nil
        }
        return value
    }

    // MARK: The model

    mutating func model(_ root: Node) -> Model? {
        guard let top = mapping(root, "model", allowed: ["entities", "removed-entities", "feeds", "views"]) else { return nil }
        let entityNodes = list(top, "entities", "model")
        let entities = entityNodes.enumerated().compactMap { entity($1, "entities[\($0)]") }
        if top["entities"] == nil { problem(root, "model", "missing 'entities'") }
        let declared = entityNodes.enumerated().flatMap { relationships(of: $1, "entities[\($0)]") }
        let feeds = list(top, "feeds", "model").enumerated().compactMap { feed($1, "feeds[\($0)]", entities: entities) }
        let views = list(top, "views", "model").enumerated().compactMap { view($1, "views[\($0)]", entities: entities) }
        var model = Model(entities: entities, feeds: feeds, views: views, relationships: declared, evolutions: evolutions)
        model.renamedEntities = renamedEntities
        model.removedEntities = strings(top, "removed-entities", "model") ?? []
        return model
    }

    private mutating func feed(_ node: Node, _ path: String, entities: [EntityDescription]) -> FeedMapping? {
        guard let fields = mapping(node, path, allowed: ["name", "entity", "format", "records", "namespaces", "duplicates", "unmapped", "url", "url-values", "headers", "parameters", "pages", "fields", "children", "csv", "sync", "delete-marker", "timestamp-from", "doc"]),
              let name = string(fields, "name", path, required: true, in: node) else { return nil }
        if let mark = node.mark { marks["feed \(name)"] = mark }
        let entity = string(fields, "entity", path, required: entities.count != 1, in: node) ?? entities.first?.name ?? ""
        guard let format: FeedFormat = enumeration(fields, "format", path, required: true, in: node) else { return nil }
        var namespaces: [String: String] = [:]
        if let node = fields["namespaces"] {
            if let mapping = node.mapping {
                for (prefix, uri) in mapping {
                    if let prefix = prefix.string, let uri = uri.string { namespaces[prefix] = uri }
                }
            } else {
                problem(node, "\(path).namespaces", "expected a mapping of prefixes to namespace URIs")
            }
        }
        let mappings = list(fields, "fields", path).enumerated().compactMap { index, item in fieldMapping(item, "\(path).fields[\(index)]", feed: name) }
        var feed = FeedMapping(name: name, entity: entity, format: format, records: string(fields, "records", path, in: node),
                               namespaces: namespaces, fields: mappings)
        feed.duplicates = enumeration(fields, "duplicates", path, required: false, in: node) ?? .last
        feed.unmapped = enumeration(fields, "unmapped", path, required: false, in: node) ?? .warn
        feed.children = list(fields, "children", path).enumerated().compactMap { childMapping($1, "\(path).children[\($0)]", feed: name) }
        if let markerNode = fields["delete-marker"], let marker = mapping(markerNode, "\(path).delete-marker", allowed: ["field", "values"]),
           let field = string(marker, "field", "\(path).delete-marker", required: true, in: markerNode) {
            let values = marker["values"]?.sequence?.compactMap(\.string) ?? []
            if let valuesNode = marker["values"], valuesNode.sequence == nil { problem(valuesNode, "\(path).delete-marker.values", "expected a list of values") }
            feed.deleteMarker = DeleteMarker(field: field, values: values)
        }
        if let timeNode = fields["timestamp-from"], let time = mapping(timeNode, "\(path).timestamp-from", allowed: ["file-name", "format"]),
           let pattern = string(time, "file-name", "\(path).timestamp-from", required: true, in: timeNode) {
            feed.timestampFrom = FileNameTime(pattern: pattern, format: string(time, "format", "\(path).timestamp-from", in: timeNode))
        }
        if let syncNode = fields["sync"], let sync = mapping(syncNode, "\(path).sync", allowed: ["scope"]) {
            feed.syncScope = string(sync, "scope", "\(path).sync", required: true, in: syncNode)
        }
        if let recordsNode = fields["records"], format == .ndjson {
            problem(recordsNode, "\(path).records", "'records' is not used by ndjson feeds (each line is one record; envelopes holding "
                + "the records are not read): remove it, or read the feed as json")
        }
        if let csvNode = fields["csv"] {
            if format != .csv { problem(csvNode, "\(path).csv", "csv options need 'format: csv'") }
            feed.csv = csvDialect(csvNode, "\(path).csv")
        }
        feed.source = source(fields, path, in: node)
        if let pagesNode = fields["pages"] {
            if feed.source == nil { problem(pagesNode, "\(path).pages", "pages need the feed's 'url'") }
            feed.source?.pages = pages(pagesNode, "\(path).pages", format: format)
        }
        return feed
    }

    /// One item of a feed mapping's `fields`: which attribute, from which field, read how.
    mutating func fieldMapping(_ item: Node, _ itemPath: String, feed name: String) -> FieldMapping? {
        guard let field = mapping(item, itemPath, allowed: ["attribute", "field", "constant", "trim", "empty-is-null", "default", "scale", "sign", "format", "zone", "repeated", "separator",
                                                               "capture", "split", "part", "lookup", "offset", "negate"]),
              let attribute = string(field, "attribute", itemPath, required: true, in: item) else { return nil }
        if let mark = item.mark { marks["feed \(name) \(attribute)"] = mark }
        var mapping = FieldMapping(attribute: attribute, field: string(field, "field", itemPath, in: item))
        mapping.trim = bool(field, "trim", itemPath)
        mapping.emptyIsNull = bool(field, "empty-is-null", itemPath)
        mapping.constant = field["constant"].flatMap(value)
        mapping.defaultValue = field["default"].flatMap(value)
        if let scale = field["scale"] {
            if let number = scale.float { mapping.scale = number } else { problem(scale, "\(itemPath).scale", "expected a number") }
        }
        if let formatNode = field["format"], formatNode.mapping != nil {
            mapping.numberFormat = numberFormat(formatNode, "\(itemPath).format")
        } else {
            mapping.format = string(field, "format", itemPath, in: item)
        }
        mapping.timeZone = string(field, "zone", itemPath, in: item)
        mapping.repeated = repeated(field, itemPath, in: item)
        mapping.capture = string(field, "capture", itemPath, in: item)
        mapping.split = string(field, "split", itemPath, in: item)
        mapping.part = field["part"].flatMap { node in
            guard let part = node.int else { problem(node, "\(itemPath).part", "expected an integer"); return nil }
            return part
        }
        mapping.offset = field["offset"].flatMap { node in
            guard let offset = node.float else { problem(node, "\(itemPath).offset", "expected a number"); return nil }
            return offset
        }
        mapping.negate = bool(field, "negate", itemPath)
        if let node = field["lookup"] {
            if let pairs = node.mapping {
                var table: [String: Value] = [:]
                for (key, value) in pairs {
                    guard let text = key.string else { continue }
                    table[text] = self.value(value) ?? .null
                }
                mapping.lookup = table
            } else {
                problem(node, "\(itemPath).lookup", "expected a mapping from feed text to a value")
            }
        }
        if let signNode = field["sign"], let sign = self.mapping(signNode, "\(itemPath).sign", allowed: ["field", "suffix", "negative", "positive"]) {
            let signField = string(sign, "field", "\(itemPath).sign", in: signNode)
            let suffix = bool(sign, "suffix", "\(itemPath).sign")
            if (signField == nil) == !suffix {
                problem(signNode, "\(itemPath).sign", "give either 'field' (a direction field) or 'suffix: true' (a marker glued to the number)")
            }
            mapping.sign = SignRule(field: signField, negative: strings(sign, "negative", "\(itemPath).sign") ?? [],
                                    positive: strings(sign, "positive", "\(itemPath).sign") ?? [])
            if mapping.sign?.negative.isEmpty ?? true { problem(signNode, "\(itemPath).sign", "missing 'negative' markers") }
        }
        return mapping
    }

    /// `url:` and `headers:` of a feed mapping: an http(s) URL, headers valued from `env` or `file`.
    private mutating func source(_ fields: [String: Node], _ path: String, in node: Node) -> FeedSource? {
        let headers = secrets(fields, "headers", path)
        let parameters = secrets(fields, "parameters", path)
        guard let url = string(fields, "url", path, in: node) else {
            for key in ["headers", "parameters"] where fields[key] != nil { problem(fields[key], "\(path).\(key)", "\(key) need the feed's 'url'") }
            return nil
        }
        let lowered = url.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            problem(fields["url"], "\(path).url", "'\(url)' is not an http or https URL")
            return nil
        }
        var source = FeedSource(url: url, headers: headers)
        source.parameters = parameters
        source.values = urlValues(fields["url-values"], path, url: url, in: node)
        return source
    }

    /// `headers:` or `parameters:`: names valued from `env` or `file`, never inline.
    private mutating func secrets(_ fields: [String: Node], _ key: String, _ path: String) -> [FeedSource.Header] {
        list(fields, key, path).enumerated().compactMap { index, item -> FeedSource.Header? in
            let itemPath = "\(path).\(key)[\(index)]"
            guard let header = mapping(item, itemPath, allowed: ["name", "env", "file"]),
                  let name = string(header, "name", itemPath, required: true, in: item) else { return nil }
            let environment = string(header, "env", itemPath, in: item), file = string(header, "file", itemPath, in: item)
            guard (environment == nil) != (file == nil) else {
                problem(item, itemPath, "give the header's value as 'env: VARIABLE' or 'file: PATH' (a model file never holds a secret)")
                return nil
            }
            return FeedSource.Header(name: name, environment: environment, file: file)
        }
    }

    private mutating func view(_ node: Node, _ path: String, entities: [EntityDescription]) -> ViewDefinition? {
        guard let fields = mapping(node, path, allowed: ["name", "entity", "group-by", "aggregates", "doc"]),
              let name = string(fields, "name", path, required: true, in: node) else { return nil }
        if let mark = node.mark { marks["view \(name)"] = mark }
        let entity = string(fields, "entity", path, required: entities.count != 1, in: node) ?? entities.first?.name ?? ""
        let aggregates = list(fields, "aggregates", path).enumerated().compactMap { index, item -> Aggregate? in
            let itemPath = "\(path).aggregates[\(index)]"
            guard let aggregate = mapping(item, itemPath, allowed: ["name", "function", "attribute"]),
                  let aggregateName = string(aggregate, "name", itemPath, required: true, in: item) else { return nil }
            if let mark = item.mark { marks["view \(name) \(aggregateName)"] = mark }
            let function: Aggregate.Function? = enumeration(aggregate, "function", itemPath, required: true, in: item)
            return function.map { Aggregate(name: aggregateName, function: $0, attribute: string(aggregate, "attribute", itemPath, in: item)) }
        }
        if fields["group-by"] == nil { problem(node, path, "missing 'group-by'") }
        return ViewDefinition(name: name, entity: entity, groupBy: strings(fields, "group-by", path) ?? [], aggregates: aggregates,
                              documentation: string(fields, "doc", path, in: node))
    }
}
