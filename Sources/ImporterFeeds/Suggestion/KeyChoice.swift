import ImporterModel

/// The unique key a suggestion proposes: a field with a value in every sampled record and no
/// value twice within one feed, an identifier first (`id`, then `…_id`, `code`, `key`), then text
/// and integers before datetimes and reals; two fields together only when no single one is unique.
/// When nothing is unique, the best candidate is proposed with a note saying so.
public struct KeyChoice: Sendable, Equatable {
    /// Indices into the candidates given to `choose`.
    public var fields: [Int]
    /// Why the key may not hold, when no unique choice existed.
    public var warning: String?

    /// One candidate: its name words, type, whether every record has it, whether it repeats, and
    /// its value per record index.
    public struct Candidate: Sendable {
        public var words: [String]
        public var type: AttributeType
        public var required: Bool
        public var repeated: Bool
        public var values: [Int: String]

        public init(words: [String], type: AttributeType, required: Bool, repeated: Bool, values: [Int: String]) {
            self.words = words
            self.type = type
            self.required = required
            self.repeated = repeated
            self.values = values
        }
    }

    /// `feeds`: the record index range of each sampled feed (uniqueness is checked within each).
    public static func choose(_ candidates: [Candidate], feeds: [Range<Int>]) -> KeyChoice? {
        let usable = candidates.indices.filter { candidates[$0].required && !candidates[$0].repeated && candidates[$0].type != .boolean }
        let ranked = usable.sorted { (rank(candidates[$0]), candidates[$0].words.count, $0) < (rank(candidates[$1]), candidates[$1].words.count, $1) }
        if let single = ranked.first(where: { isUnique([candidates[$0]], feeds: feeds) }) {
            return KeyChoice(fields: [single])
        }
        let pool = Array(ranked.prefix(16))
        for (position, first) in pool.enumerated() {
            for second in pool[(position + 1)...] where isUnique([candidates[first], candidates[second]], feeds: feeds) {
                return KeyChoice(fields: [first, second])
            }
        }
        let fallback = ranked.max { distinct(candidates[$0]) < distinct(candidates[$1]) }
            ?? candidates.indices.filter { !candidates[$0].repeated }.max { candidates[$0].values.count < candidates[$1].values.count }
        guard let fallback else { return nil }
        let candidate = candidates[fallback]
        var warning = "no field (nor pair of fields) is unique in every sampled feed; the key '\(candidate.words.joined(separator: "/"))' "
            + "has \(distinct(candidate)) distinct values in \(feeds.map(\.count).reduce(0, +)) records: records sharing a key are one record "
            + "(the last one wins). Choose a key that identifies a record."
        if !candidate.required {
            warning += " It has no value in some records; those will be rejected."
        }
        return KeyChoice(fields: [fallback], warning: warning)
    }

    /// Lower is better.
    static func rank(_ candidate: Candidate) -> Int {
        let tokens = NameWords.tokens(candidate.words)
        let typeRank: Int = switch candidate.type {
        case .text, .integer: 0
        case .date, .datetime: 1
        default: 2
        }
        if tokens.last == "id" { return candidate.words.count == 1 ? 0 : 1 }
        if let last = tokens.last, ["uuid", "guid", "key", "code", "identifier"].contains(last) { return 2 }
        return 3 + typeRank
    }

    static func distinct(_ candidate: Candidate) -> Int { Set(candidate.values.values).count }

    static func isUnique(_ fields: [Candidate], feeds: [Range<Int>]) -> Bool {
        for feed in feeds {
            var seen = Set<[String]>()
            for record in feed {
                var key: [String] = []
                for field in fields {
                    guard let value = field.values[record] else { return false }
                    key.append(value)
                }
                if !seen.insert(key).inserted { return false }
            }
        }
        return true
    }
}
