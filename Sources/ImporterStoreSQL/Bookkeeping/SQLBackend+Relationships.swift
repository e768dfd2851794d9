import Foundation
import ImporterModel
import ImporterStore

/// The relationships between a store's entities, kept in `importer_metadata.relationships` as a
/// JSON array (one per child entity), so that commands reading the store without a model (`export`,
/// reports) follow its graph; and per feed mapping the fields its runs met and it does not read
/// (`unmapped:<mapping>`), so a new one is said once.
extension SQLBackend {
    package func registeredRelationships() throws(StoreError) -> [Relationship] {
        try mapErrors {
            guard let json = try metadata(Self.relationshipsKey)?.stringValue else { return [] }
            return try JSONDecoder().decode([Relationship].self, from: Data(json.utf8))
        }
    }

    /// Records `relationships`, each replacing the one registered for its child entity; writes
    /// nothing when they are registered already.
    package func registerRelationships(_ relationships: [Relationship]) throws {
        let registered = try registeredRelationships()
        var merged = registered
        for relationship in relationships {
            if let index = merged.firstIndex(where: { $0.child == relationship.child }) {
                merged[index] = relationship
            } else {
                merged.append(relationship)
            }
        }
        guard merged != registered else { return }
        try setMetadata([(key: Self.relationshipsKey, value: .text(try Self.sortedJSON(merged)))])
    }

    static var relationshipsKey: String { "relationships" }

    package func knownUnmappedFields(of mapping: String) throws -> [String] {
        guard let json = try metadata("unmapped:" + mapping)?.stringValue else { return [] }
        return try JSONDecoder().decode([String].self, from: Data(json.utf8))
    }

    package func recordUnmappedFields(_ fields: [String], of mapping: String) throws {
        guard try knownUnmappedFields(of: mapping) != fields else { return }
        try setMetadata([(key: "unmapped:" + mapping, value: .text(String(decoding: try JSONEncoder().encode(fields), as: UTF8.self)))])
    }
}
