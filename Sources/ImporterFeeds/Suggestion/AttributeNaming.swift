import ImporterModel

/// Attribute names for sampled fields: lowercase snake_case ASCII from the field's path, short
/// (the leaf: `mag`) unless two fields would share it (then `properties_type`, `geometry_type`),
/// and never a name a model refuses: not `id` (the record id's column: `feature_id`), not
/// `importer_…`, not an expression keyword, within `SQLIdentifier.Limit.attribute` bytes.
public enum AttributeNaming {
    static let maximum = SQLIdentifier.Limit.attribute

    /// One name per field (same order), unique. `recordNoun` names a renamed top-level `id`
    /// (`feature` → `feature_id`); `source_id` without one.
    public static func names(for fields: [(words: [String], shortWords: Int)], recordNoun: String?) -> [String] {
        var lengths = fields.map { $0.shortWords }
        var names = fields.indices.map { name(fields[$0].words, length: lengths[$0], recordNoun: recordNoun) }
        // Lengthen colliding names one word at a time, while a longer one exists.
        for _ in 0..<8 {
            var groups: [String: [Int]] = [:]
            for (index, name) in names.enumerated() { groups[name, default: []].append(index) }
            let colliding = groups.values.filter { $0.count > 1 }
            guard !colliding.isEmpty else { break }
            var changed = false
            for group in colliding {
                for index in group where lengths[index] < fields[index].words.count {
                    lengths[index] += 1
                    names[index] = name(fields[index].words, length: lengths[index], recordNoun: recordNoun)
                    changed = true
                }
            }
            if !changed { break }
        }
        var used = Set<String>()
        for index in names.indices {
            var candidate = names[index]
            var number = 2
            while used.contains(candidate) {
                candidate = String(names[index].prefix(maximum - 4)) + "_\(number)"
                number += 1
            }
            used.insert(candidate)
            names[index] = candidate
        }
        return names
    }

    /// The name made of the last `length` words (more when the result would be reserved).
    static func name(_ words: [String], length: Int, recordNoun: String?) -> String {
        var length = max(1, length)
        var name = safe(NameWords.snake(Array(words.suffix(length))))
        while name == "id", length < words.count {
            length += 1
            name = safe(NameWords.snake(Array(words.suffix(length))))
        }
        if name == "id" { name = (recordNoun.map { NameWords.snake([$0]) }.flatMap { $0.isEmpty ? nil : $0 } ?? "source") + "_id" }
        return name
    }

    /// `name` made valid: a letter first, no reserved prefix or keyword, at most `maximum` bytes.
    static func safe(_ snake: String) -> String {
        var name = snake.isEmpty ? "field" : snake
        if let first = name.first, first.isNumber { name = "field_" + name }
        if name.hasPrefix("importer_") || name.hasPrefix("sqlite_") { name = "field_" + name }
        if ExpressionParser.reservedWords.contains(name) { name += "_value" }
        if name.utf8.count > maximum { name = String(name.prefix(maximum)) }
        while name.hasSuffix("_") { name.removeLast() }
        return name
    }

    /// The entity's name (CamelCase) and table (snake_case) from a feed's file name.
    /// `recordNoun`, the singular of the records path's last step (`features` → feature, `item`),
    /// names the entity when there is one; else the file's name without the date or time a dated
    /// export carries (`usgs-all-week-20210720T1423Z` → UsgsAllWeek).
    public static func entityNames(forPath path: String, recordNoun: String? = nil) -> (entity: String, table: String) {
        let words = [recordNoun ?? undatedBaseName(of: path)]
        var entity = NameWords.camel(words)
        var table = NameWords.snake(words)
        if entity.isEmpty || entity.first?.isNumber == true { entity = "Feed" + entity; table = "feed_" + table }
        if table.hasSuffix("_") { table.removeLast() }
        if SQLIdentifier.isReserved(table) { table = "feed_" + table }
        return (String(entity.prefix(SQLIdentifier.Limit.table)), String(table.prefix(SQLIdentifier.Limit.table)))
    }

    /// The feed mapping's name from a feed's file name (`all-day`).
    public static func mappingName(forPath path: String) -> String {
        let name = NameWords.tokens(of: undatedBaseName(of: path)).joined(separator: "-")
        return name.isEmpty ? "feed" : name
    }

    /// The file's base name cut before a date or time stamp (a separator and four or more digits),
    /// when something is left before it.
    static func undatedBaseName(of path: String) -> String {
        let name = NameWords.baseName(of: path)
        let characters = Array(name)
        for index in characters.indices.dropFirst() where "-_. ".contains(characters[index - 1]) {
            let digits = characters[index...].prefix { $0.isASCII && $0.isNumber }.count
            if digits >= 4 { return String(characters[..<(index - 1)]) }
        }
        return name
    }
}
