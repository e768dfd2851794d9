/// The unambiguous pairs of key drift (`KeyDrift`), the same for every backend: a stored record the
/// run did not write and a record it inserted, within the tolerance and agreeing, each the other's
/// only candidate. Both sides sorted by position and swept once: near-linear.
public enum KeyDriftPairing {
    /// One side of a possible pair: a record, its key's position, and what must agree.
    public struct Candidate: Sendable {
        public let id: Int64
        public let position: Double
        public let match: [Value]

        public init(id: Int64, position: Double, match: [Value]) {
            self.id = id
            self.position = position
            self.match = match
        }

        /// A row `id, drifting key attribute, match values…`; nil when the key has no position.
        public init?(row: [Value]) {
            guard row.count >= 2, case .integer(let id) = row[0], let position = KeyDrift.position(of: row[1]) else { return nil }
            self.init(id: id, position: position, match: Array(row.dropFirst(2)))
        }
    }

    /// Rows `id, drifting key attribute, match values…` as candidates sorted by position (rows
    /// whose key has no position are left out).
    public static func candidates(_ rows: [[Value]]) -> [Candidate] {
        rows.compactMap(Candidate.init(row:)).sorted { $0.position < $1.position }
    }

    /// The pairs (stored, inserted); `gone` and `inserted` sorted by position.
    public static func pairs(_ gone: [Candidate], _ inserted: [Candidate], tolerance: Double) -> [(Candidate, Candidate)] {
        var goneMatches = [Int](repeating: 0, count: gone.count)
        var insertedMatches = [Int](repeating: 0, count: inserted.count)
        var only = [Int?](repeating: nil, count: gone.count)
        var start = 0
        for (g, stored) in gone.enumerated() {
            while start < inserted.count, inserted[start].position < stored.position - tolerance { start += 1 }
            var j = start
            while j < inserted.count, inserted[j].position <= stored.position + tolerance {
                if inserted[j].match == stored.match {
                    goneMatches[g] += 1
                    insertedMatches[j] += 1
                    only[g] = j
                }
                j += 1
            }
        }
        return gone.indices.compactMap { g in
            guard goneMatches[g] == 1, let j = only[g], insertedMatches[j] == 1 else { return nil }
            return (gone[g], inserted[j])
        }
    }
}
