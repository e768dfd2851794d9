import Foundation
import ImporterHistory
import ImporterModel
import ImporterStore
import ImporterSupport

/// `importer status`: the store at a glance (file, schema, records, history, consumers, views,
/// purged range, rejects).
public struct StatusReport: ListReport {
    public var status: StoreStatus

    public init(_ status: StoreStatus) {
        self.status = status
    }

    public func renderText(to output: OutputSink) {
        let wal = status.walBytes.map { " (+\(Self.megabytes($0)) WAL)" } ?? ""
        output.write("Store \(status.path): \(Self.megabytes(status.bytes))\(wal), schema \(status.schemaVersion), id \(status.storeID)\n")
        for entity in status.entities { output.write("  \(entity.name) (table \(entity.table)): \(entity.records) records\n") }
        let history = status.history
        output.write("History: \(history.transactions) transaction(s), \(history.changes) change(s)")
        if let oldest = history.oldest, let newest = history.newest {
            output.write(", oldest \(oldest.number) (\(oldest.timestamp)), newest \(newest.number) (\(newest.timestamp), token \(newest.token))")
        }
        output.write("\n")
        output.write(history.purgedThrough > 0 ? "Purged: transactions through \(history.purgedThrough) (at \(history.purgedAt ?? "?"))\n" : "Purged: nothing\n")
        for kind in [Consumer.Kind.external, .view] {
            let consumers = status.consumers.filter { $0.consumer.kind == kind }
            output.write(kind == .view ? "Views: " : "Consumers: ")
            output.write(consumers.isEmpty ? "none\n" : "\n")
            for entry in consumers { output.write("  " + TextFormatting.consumerLine(entry, purgedThrough: history.purgedThrough) + "\n") }
        }
        output.write("Rejects: \(status.rejects) in \(status.rejectRuns) run(s)\n")
        guard !status.sources.isEmpty else { return }
        output.write("Sources:\n")
        for source in status.sources {
            let validators = [source.etag.map { "ETag \($0)" }, source.lastModified.map { "Last-Modified \($0)" }].compactMap { $0 }
            output.write("  \(source.url): HTTP \(source.status), \(source.bytes) bytes\(validators.isEmpty ? "" : ", " + validators.joined(separator: ", ")), "
                         + "fetched \(source.fetchedAt)\(source.transactionNumber.map { ", transaction \($0)" } ?? ", no changes")\n")
        }
    }

    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }

    public func renderJSON(to output: OutputSink) {
        JSONWriter.document(to: output) { json in
            json.beginObject()
            json.field("path", status.path)
            json.field("bytes", status.bytes)
            json.field("wal_bytes", status.walBytes.map { Value.integer(Int64($0)) } ?? .null)
            json.field("schema_version", status.schemaVersion)
            json.field("store_id", status.storeID)
            json.field("created_at", status.createdAt.map(Value.text) ?? .null)
            json.key("entities")
            json.beginObject()
            for entity in status.entities {
                json.key(entity.name)
                json.beginObject()
                json.field("table", entity.table)
                json.field("records", entity.records)
                json.endObject()
            }
            json.endObject()
            json.key("history")
            writeHistory(&json)
            for (key, kind) in [("consumers", Consumer.Kind.external), ("views", .view)] {
                json.key(key)
                json.beginArray()
                for entry in status.consumers where entry.consumer.kind == kind { json.writeConsumer(entry) }
                json.endArray()
            }
            json.key("rejects")
            json.beginObject()
            json.field("runs", status.rejectRuns)
            json.field("records", status.rejects)
            json.endObject()
            json.key("sources")
            json.beginArray()
            for source in status.sources { Self.write(source, to: &json) }
            json.endArray()
            json.endObject()
        }
    }

    private static func write(_ source: SourceState, to json: inout JSONWriter) {
        json.beginObject()
        json.field("url", source.url)
        json.field("status", source.status)
        json.field("etag", source.etag.map(Value.text) ?? .null)
        json.field("last_modified", source.lastModified.map(Value.text) ?? .null)
        json.field("sha256", source.sha256.map(Value.text) ?? .null)
        json.field("bytes", Int(source.bytes))
        json.field("fetched_at", source.fetchedAt)
        json.field("transaction", source.transactionNumber.map(Value.integer) ?? .null)
        json.endObject()
    }

    private func writeHistory(_ json: inout JSONWriter) {
        let history = status.history
        json.beginObject()
        json.field("transactions", history.transactions)
        json.field("changes", history.changes)
        json.field("oldest_token", history.oldest.map { Value.text($0.token) } ?? .null)
        json.field("newest_token", history.newest.map { Value.text($0.token) } ?? .null)
        json.field("oldest_timestamp", history.oldest.map { Value.text($0.timestamp) } ?? .null)
        json.field("newest_timestamp", history.newest.map { Value.text($0.timestamp) } ?? .null)
        json.field("purged_through", history.purgedThrough)
        json.field("purged_at", history.purgedAt.map(Value.text) ?? .null)
        json.endObject()
    }
}
