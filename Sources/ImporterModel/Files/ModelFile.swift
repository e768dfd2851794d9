import Foundation
import ImporterSupport
import Yams

/// The model file format (YAML, or JSON, which is YAML too): entities, feeds and views, as
/// `importer model show` prints the built-in fireball model.
///
/// Reading reports every problem with its location (`file:line:column`): unknown keys, wrong types,
/// bad expressions, and the model's own consistency checks (`Model.validate()`), placed at the
/// entity, attribute, feed, field or view they concern.
public enum ModelFile {
    /// Reads and validates a model file. `checks` adds problems found by later stages (the feed
    /// readers' paths: `FeedMappingProblems` in ImporterFeeds), located like `Model.validate()`'s.
    public static func load(path: String, checks: (Model) -> [String] = { _ in [] }) throws(ModelError) -> Model {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "not readable UTF-8 text, or permission denied" : "No such file or directory"
            throw ModelError.unreadable(path: path, reason: reason)
        }
        return try parse(text, name: path, checks: checks)
    }

    /// Reads and validates a model from text; `name` is used in locations.
    public static func parse(_ text: String, name: String, checks: (Model) -> [String] = { _ in [] }) throws(ModelError) -> Model {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw ModelError.problems([Self.describe(error, name: name)])
        } catch {
            throw ModelError.problems(["\(name): \(error)"])
        }
        guard let root else { throw ModelError.problems(["\(name):1:1: the model is empty"]) }
        var reader = ModelReader(name: name)
        let model = reader.model(root)
        var problems = reader.problems
        if problems.isEmpty, let model {
            problems = (model.validate() + checks(model)).map { reader.locate($0) }
        }
        guard problems.isEmpty, let model else { throw ModelError.problems(problems) }
        return model
    }

    private static func describe(_ error: YamlError, name: String) -> String {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _):
            return "\(name):\(mark.line):\(mark.column): \(problem)"
        default:
            return "\(name): \(error)"
        }
    }

    // MARK: Writing

    /// The model as YAML.
    public static func yaml(_ model: Model) -> String {
        let header = "# importer model: entities, feeds (how records are read) and derived views.\n"
        return header + ((try? Yams.serialize(node: tree(model).node, indent: 2, width: -1, allowUnicode: true)) ?? "")
    }

    /// The model as JSON (one object, keys in the documented order).
    public static func json(_ model: Model) -> String {
        let sink = OutputSink.memory()
        var writer = JSONWriter(output: sink)
        tree(model).write(to: &writer)
        return sink.text + "\n"
    }

    static func tree(_ model: Model) -> Tree {
        let entities = ("entities", Tree.list(model.entities.map { entity in
            tree(entity, relationships: model.relationships.filter { $0.parent == entity.name }, evolutions: model.evolutions.filter { $0.entity == entity.name },
                 renamedFrom: model.renamedEntities[entity.name])
        }))
        let removed = model.removedEntities.isEmpty ? [] : [("removed-entities", Tree.list(model.removedEntities.map(Tree.string)))]
        return .map([entities] + removed + [("feeds", .list(model.feeds.map(tree))), ("views", .list(model.views.map(tree)))])
    }

    private static func tree(_ entity: EntityDescription, relationships: [Relationship], evolutions: [AttributeEvolution], renamedFrom: String?) -> Tree {
        var pairs: [(String, Tree)] = [("name", .string(entity.name))] + (renamedFrom.map { [("renamed-from", Tree.string($0))] } ?? []) + [
            ("table", .string(entity.tableName)),
            ("key", .list(entity.uniqueKey.map(Tree.string))),
            ("tombstone", .list(entity.tombstoneAttributes.map(Tree.string))),
        ]
        if !entity.indexes.isEmpty { pairs.append(("indexes", .list(entity.indexes.map { .list($0.map(Tree.string)) }))) }
        if let drift = entity.drift {
            var rule: [(String, Tree)] = [("attribute", .string(drift.attribute)),
                                          ("tolerance", .string(drift.toleranceText(for: entity.attribute(named: drift.attribute)?.type ?? .real)))]
            if !drift.agree.isEmpty { rule.append(("agree", .list(drift.agree.map(Tree.string)))) }
            if drift.on != .sync { rule.append(("on", .string(drift.on.rawValue))) }
            pairs.append(("drift", .map(rule)))
        }
        pairs += [
            ("attributes", .list(entity.attributes.map { attribute in
                var pairs: [(String, Tree)] = [("name", .string(attribute.name)), ("type", .string(attribute.type.rawValue))]
                if !attribute.isOptional { pairs.append(("required", .bool(true))) }
                if let documentation = attribute.documentation { pairs.append(("doc", .string(documentation))) }
                let evolution = evolutions.first { $0.attribute == attribute.name }
                if let old = evolution?.renamedFrom { pairs.append(("renamed-from", .string(old))) }
                if let fill = evolution?.defaultText { pairs.append(("default", .string(fill))) }
                if let computed = evolution?.defaultExpression { pairs.append(("default", .map([("expression", .string(computed.text))]))) }
                if let invalid = evolution?.invalid { pairs.append(("retype-invalid", .string(invalid.rawValue))) }
                return .map(pairs)
            })),
        ]
        if !entity.derivedAttributes.isEmpty {
            pairs.append(("derived", .list(entity.derivedAttributes.map { derived in
                var pairs: [(String, Tree)] = [("name", .string(derived.name)), ("type", .string(derived.type.rawValue)),
                                               ("expression", .string(derived.expression.text))]
                if let documentation = derived.documentation { pairs.append(("doc", .string(documentation))) }
                return .map(pairs)
            })))
        }
        if !relationships.isEmpty {
            pairs.append(("relationships", .list(relationships.map { relationship in
                let key: Tree = switch relationship.key {
                case .attributes(let names): .list(names.map(Tree.string))
                case .position: .string("position")
                }
                return .map([("name", .string(relationship.name)), ("entity", .string(relationship.child)), ("records", .string(relationship.records)),
                             ("key", key), ("delete", .string(relationship.deleteRule.rawValue))])
            })))
        }
        return .map(pairs)
    }

    private static func tree(_ pages: Pagination) -> Tree {
        var pairs: [(String, Tree)] = [("follow", .string(pages.kind))]
        switch pages.follow {
        case .link: break
        case .url(let pointer): pairs.append(("pointer", .string(pointer)))
        case .cursor(let pointer, let parameter): pairs += [("pointer", .string(pointer)), ("parameter", .string(parameter))]
        case .offset(let parameter, let size, let start):
            pairs += [("parameter", .string(parameter)), ("size", .integer(Int64(size))), ("start", .integer(Int64(start)))]
        case .page(let parameter, let start): pairs += [("parameter", .string(parameter)), ("start", .integer(Int64(start)))]
        }
        if pages.maxPages != Pagination.defaultMaxPages { pairs.append(("max", .integer(Int64(pages.maxPages)))) }
        return .map(pairs)
    }

    private static func tree(_ dialect: CSVDialect) -> Tree {
        var pairs: [(String, Tree)] = []
        if dialect.delimiterIsSet { pairs.append(("delimiter", .string(dialect.delimiterName))) }
        if dialect.encoding != .utf8 { pairs.append(("encoding", .string(dialect.encoding.rawValue))) }
        if dialect.skipRows > 0 { pairs.append(("skip-rows", .integer(Int64(dialect.skipRows)))) }
        if let comment = dialect.comment { pairs.append(("comment", .string(comment))) }
        if dialect.endsAtBlankLine { pairs.append(("end", .string("blank-line"))) }
        return .map(pairs)
    }

    private static func tree(_ feed: FeedMapping) -> Tree {
        var pairs: [(String, Tree)] = [("name", .string(feed.name)), ("entity", .string(feed.entity)), ("format", .string(feed.format.rawValue))]
        if let records = feed.records { pairs.append(("records", .string(records))) }
        if !feed.namespaces.isEmpty {
            pairs.append(("namespaces", .map(feed.namespaces.sorted { $0.key < $1.key }.map { ($0.key, Tree.string($0.value)) })))
        }
        if feed.duplicates != .last { pairs.append(("duplicates", .string(feed.duplicates.rawValue))) }
        if feed.unmapped != .warn { pairs.append(("unmapped", .string(feed.unmapped.rawValue))) }
        if let scope = feed.syncScope { pairs.append(("sync", .map([("scope", .string(scope))]))) }
        if let time = feed.timestampFrom {
            pairs.append(("timestamp-from", .map([("file-name", Tree.string(time.pattern))] + (time.format.map { [("format", Tree.string($0))] } ?? []))))
        }
        if let marker = feed.deleteMarker {
            pairs.append(("delete-marker", .map([("field", Tree.string(marker.field))] + (marker.values.isEmpty ? [] : [("values", .list(marker.values.map(Tree.string)))]))))
        }
        if feed.csv != CSVDialect() { pairs.append(("csv", tree(feed.csv))) }
        if let source = feed.source {
            pairs.append(("url", .string(source.url)))
            for (key, secrets) in [("headers", source.headers), ("parameters", source.parameters)] where !secrets.isEmpty {
                pairs.append((key, .list(secrets.map { header in
                    .map([("name", .string(header.name))] + (header.environment.map { [("env", Tree.string($0))] } ?? [])
                         + (header.file.map { [("file", Tree.string($0))] } ?? []))
                })))
            }
            if !source.values.isEmpty {
                pairs.append(("url-values", .map(source.values.map { value in
                    var fields: [(String, Tree)] = [(value.extreme.rawValue, .string(value.attribute))]
                    if let initial = value.initial { fields.append(("initial", .string(initial))) }
                    if value.format != .stored { fields.append(("format", .string(value.format.rawValue))) }
                    if let lag = value.lag { fields.append(("lag", .string(lag.description))) }
                    return (value.name, Tree.map(fields))
                })))
            }
            if let pages = source.pages { pairs.append(("pages", tree(pages))) }
        }
        pairs.append(("fields", .list(feed.fields.map(tree))))
        if !feed.children.isEmpty {
            pairs.append(("children", .list(feed.children.map(tree))))
        }
        return .map(pairs)
    }

    private static func tree(_ children: ChildMapping) -> Tree {
        var pairs: [(String, Tree)] = [("relationship", .string(children.relationship)), ("fields", .list(children.fields.map(tree)))]
        if !children.children.isEmpty { pairs.append(("children", .list(children.children.map(tree)))) }
        return .map(pairs)
    }

    private static func tree(_ field: FieldMapping) -> Tree {
            var pairs: [(String, Tree)] = [("attribute", .string(field.attribute))]
            if let name = field.field { pairs.append(("field", .string(name))) }
            if let constant = field.constant { pairs.append(("constant", Tree(constant))) }
            if field.trim { pairs.append(("trim", .bool(true))) }
            if field.emptyIsNull { pairs.append(("empty-is-null", .bool(true))) }
            if let value = field.defaultValue { pairs.append(("default", Tree(value))) }
            if let scale = field.scale { pairs.append(("scale", .real(scale))) }
            if let sign = field.sign {
                var rule: [(String, Tree)] = []
                if let name = sign.field { rule.append(("field", .string(name))) } else { rule.append(("suffix", .bool(true))) }
                rule.append(("negative", .list(sign.negative.map(Tree.string))))
                rule.append(("positive", .list(sign.positive.map(Tree.string))))
                pairs.append(("sign", .map(rule)))
            }
            if let format = field.format { pairs.append(("format", .string(format))) }
            if let number = field.numberFormat {
                pairs.append(("format", .map((number.thousands.map { [("thousands", Tree.string(String(UnicodeScalar($0))))] } ?? [])
                    + [("decimal", .string(String(UnicodeScalar(number.decimal))))])))
            }
            if let zone = field.timeZone { pairs.append(("zone", .string(zone))) }
            if field.repeated != .reject { pairs.append(("repeated", .string(field.repeated.name))) }
            if case .join(let separator) = field.repeated { pairs.append(("separator", .string(separator))) }
            if let capture = field.capture { pairs.append(("capture", .string(capture))) }
            if let split = field.split { pairs.append(("split", .string(split))) }
            if let part = field.part { pairs.append(("part", .integer(Int64(part)))) }
            if let lookup = field.lookup {
                pairs.append(("lookup", .map(lookup.sorted { $0.key < $1.key }.map { ($0.key, Tree($0.value)) })))
            }
            if let offset = field.offset { pairs.append(("offset", .real(offset))) }
            if field.negate { pairs.append(("negate", .bool(true))) }
            return .map(pairs)
    }

    private static func tree(_ view: ViewDefinition) -> Tree {
        var pairs: [(String, Tree)] = [
            ("name", .string(view.name)), ("entity", .string(view.entity)), ("group-by", .list(view.groupBy.map(Tree.string))),
            ("aggregates", .list(view.aggregates.map { aggregate in
                var pairs: [(String, Tree)] = [("name", .string(aggregate.name)), ("function", .string(aggregate.function.rawValue))]
                if let attribute = aggregate.attribute { pairs.append(("attribute", .string(attribute))) }
                return .map(pairs)
            })),
        ]
        if let documentation = view.documentation { pairs.append(("doc", .string(documentation))) }
        return .map(pairs)
    }

    /// An ordered document tree, rendered as YAML (through Yams) or JSON.
    indirect enum Tree {
        case null, bool(Bool), integer(Int64), real(Double), string(String)
        case list([Tree])
        case map([(String, Tree)])

        init(_ value: Value) {
            switch value {
            case .null: self = .null
            case .integer(let n): self = .integer(n)
            case .real(let x): self = .real(x)
            case .text(let t): self = .string(t)
            }
        }

        var node: Node {
            switch self {
            case .null: return Node("null", .implicit, .plain)
            case .bool(let b): return Node(b ? "true" : "false", .implicit, .plain)
            case .integer(let n): return Node(String(n), .implicit, .plain)
            case .real(let x): return Node(x.description, .implicit, .plain)
            case .string(let s):
                return Node(s, .implicit, Self.isPlainSafe(s) ? .plain : .doubleQuoted)
            case .list(let items):
                // Lists of plain values read best on one line: `key: [date]`.
                let scalars = items.allSatisfy { if case .list = $0 { false } else if case .map = $0 { false } else { true } }
                return Node(items.map(\.node), .implicit, scalars ? .flow : .block)
            case .map(let pairs): return Node(pairs.map { (Node($0.0), $0.1.node) })
            }
        }

        /// Whether `s` reads back as the same string when written without quotes.
        static func isPlainSafe(_ s: String) -> Bool {
            guard let first = s.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return false }
            let keywords: Set<String> = ["true", "false", "yes", "no", "on", "off", "null", "y", "n"]
            guard !keywords.contains(s.lowercased()) else { return false }
            return s.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || " _-.,/()^".unicodeScalars.contains($0) }
                && !s.hasSuffix(" ")
        }

        func write(to writer: inout JSONWriter) {
            switch self {
            case .null: writer.null()
            case .bool(let b): writer.bool(b)
            case .integer(let n): writer.int(n)
            case .real(let x): writer.value(x.description)
            case .string(let s): writer.string(s)
            case .list(let items):
                writer.beginArray()
                for item in items { item.write(to: &writer) }
                writer.endArray()
            case .map(let pairs):
                writer.beginObject()
                for (key, value) in pairs {
                    writer.key(key)
                    value.write(to: &writer)
                }
                writer.endObject()
            }
        }
    }
}

