import Foundation
import ImporterModel

/// A consumer as both backends store it in `importer_consumer`: the columns `storedColumnNames`, in
/// that order, with the lists as JSON arrays of strings.
extension Consumer {
    /// The `importer_consumer` columns, in the order of `storedRow` and `init(storedRow:)`.
    public static let storedColumnNames = ["name", "kind", "token_number", "entities", "attributes", "exclude_authors", "created_at", "last_replay_at"]

    /// The values of `storedColumnNames`.
    public var storedRow: [Value] {
        func list(_ names: [String]) -> Value {
            .text(String(decoding: (try? JSONEncoder().encode(names)) ?? Data("[]".utf8), as: UTF8.self))
        }
        return [.text(name), .text(kind.rawValue), .integer(tokenNumber), list(entities), list(attributes), list(excludedAuthors),
                .text(createdAt), lastReplayAt.map(Value.text) ?? .null]
    }

    /// A consumer read back from the values of `storedColumnNames`; nil when the token is missing.
    public init?(storedRow row: [Value]) {
        func list(_ value: Value) -> [String] {
            (try? JSONDecoder().decode([String].self, from: Data((value.stringValue ?? "[]").utf8))) ?? []
        }
        guard row.count == Self.storedColumnNames.count, case .integer(let token) = row[2] else { return nil }
        self.init(name: row[0].stringValue ?? "", kind: Kind(rawValue: row[1].stringValue ?? "") ?? .external,
                  tokenNumber: token, entities: list(row[3]), attributes: list(row[4]), excludedAuthors: list(row[5]),
                  createdAt: row[6].stringValue ?? "", lastReplayAt: row[7].stringValue)
    }
}
