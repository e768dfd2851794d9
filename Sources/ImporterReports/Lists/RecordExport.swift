import ImporterHistory
import ImporterModel
import ImporterStore
import ImporterSupport

/// `importer export`: an entity's records, now or as of a past transaction, in key order. JSON is
/// one array of objects keyed by attribute name, each with its children nested (`NestedRecords`);
/// NDJSON one such object per line; CSV a header of attribute names and one row per record (text
/// quoted, numbers bare, null empty).
public struct RecordExport {
    public enum Format: String, Sendable, CaseIterable {
        case json, ndjson, csv
    }

    public init() {}

    /// What an export wrote.
    public struct Written: Sendable, Equatable {
        /// Records of the entity exported.
        public var records = 0
        /// Children (by entity) not nested because their parent is not among the records: kept
        /// by a `nullify` rule, or written by a model without the relationship.
        public var orphans: [String: Int] = [:]
    }

    /// Writes the records of `tree.entity` as they stood after transaction `number`, read from
    /// `snapshot`; in JSON and NDJSON each with its children nested under the relationship's name
    /// (every attribute but the parent's key), the children's children inside them. CSV is flat:
    /// the children are other files (`export --entity`).
    @discardableResult
    public func write(_ tree: ExportTree, asOf number: Int64, as format: Format, in snapshot: StoreSnapshot,
                      to output: OutputSink) throws -> Written {
        let names = tree.entity.attributes.map(\.name)
        var written = Written()
        if format == .json { output.write("[") }
        if format == .csv { output.write(TableCSV.header(names)) }
        var nested = NestedRecords(snapshot: snapshot, asOf: number)
        let children = format == .csv ? ExportTree(tree.entity, relationships: [], entities: []) : tree
        try nested.forEachRecord(of: children) { values, writeChildren in
            switch format {
            case .json:
                output.write(written.records == 0 ? "\n" : ",\n")
                var json = JSONWriter(output: output)
                try Self.object(names, values, writeChildren, &json)
            case .ndjson:
                try JSONWriter.document(to: output) { try Self.object(names, values, writeChildren, &$0) }
            case .csv:
                output.write(TableCSV.row(values))
            }
            written.records += 1
        }
        if format == .json { output.write(written.records == 0 ? "]\n" : "\n]\n") }
        written.orphans = nested.orphans
        return written
    }

    private static func object(_ names: [String], _ values: [Value], _ children: (inout JSONWriter) throws -> Void,
                               _ json: inout JSONWriter) throws {
        json.beginObject()
        for (name, value) in zip(names, values) { json.field(name, value) }
        try children(&json)
        json.endObject()
    }
}
