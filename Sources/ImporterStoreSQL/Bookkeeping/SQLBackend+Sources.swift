import ImporterModel
import ImporterStore

/// What the store keeps of feeds fetched from URLs (`importer_source`), one row per URL.
extension SQLBackend {
    private static var sourceColumns: String {
        #""url", "etag", "last_modified", "sha256", "bytes", "status", "fetched_at", "transaction_number""#
    }

    package func sourceStates() throws(StoreError) -> [SourceState] {
        guard storesSourceStates else { return [] }
        return try mapErrors {
            try executor.rows(#"SELECT \#(Self.sourceColumns) FROM importer_source ORDER BY \#(dialect.bytewise(#""url""#))"#, []).map(Self.sourceState)
        }
    }

    package func sourceState(url: String) throws(StoreError) -> SourceState? {
        guard storesSourceStates else { return nil }
        return try mapErrors {
            try executor.rows(#"SELECT \#(Self.sourceColumns) FROM importer_source WHERE "url" = \#(p(1))"#, [.text(url)]).first.map(Self.sourceState)
        }
    }

    package func recordSourceState(_ state: SourceState) throws(StoreError) {
        let values: [Value] = [.text(state.url), state.etag.map(Value.text) ?? .null, state.lastModified.map(Value.text) ?? .null,
                               state.sha256.map(Value.text) ?? .null, .integer(state.bytes), .integer(Int64(state.status)),
                               .text(state.fetchedAt), state.transactionNumber.map(Value.integer) ?? .null]
        let placeholders = values.indices.map { p($0 + 1) }.joined(separator: ", ")
        try mapErrors {
            try executor.execute("""
                INSERT INTO importer_source (\(Self.sourceColumns)) VALUES (\(placeholders))
                ON CONFLICT ("url") DO UPDATE SET "etag" = excluded."etag", "last_modified" = excluded."last_modified",
                  "sha256" = excluded."sha256", "bytes" = excluded."bytes", "status" = excluded."status",
                  "fetched_at" = excluded."fetched_at", "transaction_number" = excluded."transaction_number"
                """, values)
        }
    }

    private static func sourceState(_ row: [Value]) -> SourceState {
        SourceState(url: row[0].stringValue ?? "", etag: row[1].stringValue, lastModified: row[2].stringValue, sha256: row[3].stringValue,
                    bytes: row[4].integerValue ?? 0, status: Int(row[5].integerValue ?? 0), fetchedAt: row[6].stringValue ?? "",
                    transactionNumber: row[7].integerValue)
    }
}
