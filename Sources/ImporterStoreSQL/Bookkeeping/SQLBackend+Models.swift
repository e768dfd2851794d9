import Foundation
import ImporterModel
import ImporterStore

/// The versions of the model a store was written with, in `importer_model` (made by the first
/// write that registers one, so stores of every schema gain it): one row per version, the
/// model's text, its digest, and for a migration its transaction and steps (JSON array).
extension SQLBackend {
    package func registeredModels() throws(StoreError) -> [StoredModel] {
        try mapErrors {
            guard try tableExists(named: "importer_model") else { return [] }
            return try executor.rows(#"SELECT "version", "digest", "text", "registered_at", "transaction_number", "steps" FROM importer_model ORDER BY "version""#, [])
                .map { row in
                    let steps = row[5].stringValue.flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
                    return StoredModel(version: row[0].integerValue ?? 0, digest: row[1].stringValue ?? "", text: row[2].stringValue ?? "",
                                       registeredAt: row[3].stringValue ?? "", transaction: row[4].integerValue, steps: steps)
                }
        }
    }

    package func registerModel(_ model: StoredModel) throws -> Bool {
        let text = dialect.columnType(.text), integer = dialect.columnType(.integer)
        try executor.execute(dialect.createTable("importer_model", [
            #""version" \#(integer) PRIMARY KEY"#, #""digest" \#(text) NOT NULL"#, #""text" \#(text) NOT NULL"#,
            #""registered_at" \#(text) NOT NULL"#, #""transaction_number" \#(integer)"#, #""steps" \#(text)"#,
        ], ifNotExists: true), [])
        let latest = try executor.rows(#"SELECT "version", "digest" FROM importer_model ORDER BY "version" DESC LIMIT 1"#, []).first
        if model.transaction == nil, latest?[1].stringValue == model.digest { return false }
        let steps = model.steps.isEmpty ? Value.null : .text(String(decoding: try JSONEncoder().encode(model.steps), as: UTF8.self))
        try executor.execute("""
            INSERT INTO importer_model ("version", "digest", "text", "registered_at", "transaction_number", "steps")
            VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)), \(p(5)), \(p(6)))
            """, [.integer((latest?[0].integerValue ?? 0) + 1), .text(model.digest), .text(model.text), .text(Timestamp.now()),
                  model.transaction.map(Value.integer) ?? .null, steps])
        return true
    }
}
