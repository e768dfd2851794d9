import ImporterHistory
import ImporterModel
import ImporterStore
import ImporterSupport

/// `importer export`: an entity's records, now or as of a past transaction, in key order. JSON is
/// one array of objects keyed by attribute name; NDJSON one such object per line; CSV a header of
/// attribute names and one row per record (text quoted, numbers bare, null empty).
public struct RecordExport {
    public enum Format: String, Sendable, CaseIterable {
        case json, ndjson, csv
    }

    public init() {}

    /// Writes `entity`'s records as they stood after transaction `number`, read from `snapshot`;
    /// returns how many.
    @discardableResult
    public func write(_ entity: EntityDescription, asOf number: Int64, as format: Format, in snapshot: StoreSnapshot,
                      to output: OutputSink) throws -> Int {
        let names = entity.attributes.map(\.name)
        var count = 0
        if format == .json { output.write("[") }
        if format == .csv { output.write(TableCSV.header(names)) }
        try snapshot.forEachRecord(of: entity, asOf: number) { values in
            switch format {
            case .json:
                output.write(count == 0 ? "\n" : ",\n")
                var json = JSONWriter(output: output)
                Self.object(names, values, &json)
            case .ndjson:
                JSONWriter.document(to: output) { Self.object(names, values, &$0) }
            case .csv:
                output.write(TableCSV.row(values))
            }
            count += 1
        }
        if format == .json { output.write(count == 0 ? "]\n" : "\n]\n") }
        return count
    }

    private static func object(_ names: [String], _ values: [Value], _ json: inout JSONWriter) {
        json.beginObject()
        for (name, value) in zip(names, values) { json.field(name, value) }
        json.endObject()
    }
}
