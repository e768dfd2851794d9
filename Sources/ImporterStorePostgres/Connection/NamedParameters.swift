import ImporterStore

/// `importer query`'s named parameters (`:name`) turned into PostgreSQL's positional ones (`$1`…),
/// outside string literals, quoted identifiers, dollar-quoted strings and comments; `::` casts
/// are left alone.
struct NamedParameters {
    /// The statement with `$n` placeholders.
    private(set) var sql = ""
    /// The parameters' names, by position.
    private(set) var names: [String] = []

    init(_ text: String) throws(QueryError) {
        var characters = Array(text)[...]
        while let character = characters.first {
            if let skipped = Self.skipped(characters) {
                sql += String(characters.prefix(skipped))
                characters = characters.dropFirst(skipped)
            } else if character == ":", characters.dropFirst().first == ":" {
                sql += "::"
                characters = characters.dropFirst(2)
            } else if character == ":", let next = characters.dropFirst().first, next == "_" || next.isLetter {
                let name = String(characters.dropFirst().prefix { $0 == "_" || $0.isLetter || $0.isNumber })
                if !names.contains(name) { names.append(name) }
                sql += "$\((names.firstIndex(of: name) ?? 0) + 1)"
                characters = characters.dropFirst(name.count + 1)
            } else if character == "$", characters.dropFirst().first?.isNumber ?? false {
                throw .parameters(.positional(marker: "$1"))
            } else {
                sql.append(character)
                characters = characters.dropFirst()
            }
        }
    }

    /// The length of the literal, quoted identifier or comment starting `text`, if one does.
    private static func skipped(_ text: ArraySlice<Character>) -> Int? {
        guard let first = text.first else { return nil }
        switch first {
        case "'", "\"":
            var index = text.index(after: text.startIndex)
            while index < text.endIndex {
                if text[index] == first {
                    // A doubled quote is an escaped one.
                    if text.index(after: index) < text.endIndex, text[text.index(after: index)] == first { index += 2; continue }
                    return index - text.startIndex + 1
                }
                index += 1
            }
            return text.count
        case "-" where text.dropFirst().first == "-":
            return (text.firstIndex(of: "\n").map { $0 - text.startIndex } ?? text.count)
        case "/" where text.dropFirst().first == "*":
            let rest = String(text.dropFirst(2))
            return rest.range(of: "*/").map { rest.distance(from: rest.startIndex, to: $0.upperBound) + 2 } ?? text.count
        case "$":
            // A dollar quote: $tag$ … $tag$ (the tag may be empty).
            let tag = text.dropFirst().prefix { $0 == "_" || $0.isLetter || $0.isNumber }
            guard text.dropFirst(tag.count + 1).first == "$", !(tag.first?.isNumber ?? false) else { return nil }
            let delimiter = "$" + String(tag) + "$"
            let rest = String(text.dropFirst(delimiter.count))
            return rest.range(of: delimiter).map { rest.distance(from: rest.startIndex, to: $0.upperBound) + delimiter.count } ?? text.count
        default:
            return nil
        }
    }
}
