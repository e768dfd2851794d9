import Foundation

/// Words of names: splitting field paths and file names into lowercase ASCII words, and joining
/// them as snake_case or CamelCase.
enum NameWords {
    static let timeWords: Set<String> = ["time", "date", "updated", "created", "modified", "timestamp", "ts", "datetime",
                                         "published", "when", "changed"]
    static let identifierWords: Set<String> = ["id", "ids", "code", "number", "num", "nr", "count", "key", "uuid", "guid"]

    /// `["properties", "magType"]` → `["properties", "mag", "type"]`; `"Peak Date/Time (UT)"` →
    /// `["peak", "date", "time", "ut"]`. Accents are dropped, other non-ASCII letters too.
    static func tokens(_ words: [String]) -> [String] {
        words.flatMap(tokens(of:))
    }

    static func tokens(of word: String) -> [String] {
        let folded = word.folding(options: [.diacriticInsensitive, .widthInsensitive], locale: nil)
        var tokens: [String] = []
        var current = ""
        var previous: Character?
        for character in folded {
            guard character.isASCII, character.isLetter || character.isNumber else {
                if !current.isEmpty { tokens.append(current); current = "" }
                previous = nil
                continue
            }
            // A lowercase letter or digit followed by an uppercase one starts a word: magType, fooID.
            if let previous, character.isUppercase, previous.isLowercase || previous.isNumber, !current.isEmpty {
                tokens.append(current)
                current = ""
            }
            current.append(Character(character.lowercased()))
            previous = character
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }

    static func snake(_ words: [String]) -> String {
        tokens(words).joined(separator: "_")
    }

    static func camel(_ words: [String]) -> String {
        tokens(words).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// A file's name without its directory and its extensions (`data/all_day.geojson` → `all_day`).
    static func baseName(of path: String) -> String {
        var name = (path as NSString).lastPathComponent
        let extensions = ["gz", "json", "geojson", "ndjson", "jsonl", "xml", "atom", "rss", "csv", "txt"]
        while let dot = name.lastIndex(of: "."), name.startIndex < dot, extensions.contains(name[name.index(after: dot)...].lowercased()) {
            name = String(name[..<dot])
        }
        return name
    }
}
