import Foundation
import Glibc
import ImporterHistory
import ImporterReports
import ImporterStore
import ImporterSupport
import NIOCore

/// How a transaction's changes are written for a receiver.
public enum DeliveryFormat: String, Sendable, CaseIterable {
    /// One JSON document: the delivery id, consumer and store id, the transaction's fields and its
    /// `changes` array (the history JSON's objects).
    case json
    /// One line per change, each with its transaction's token, number, timestamp and author and
    /// the consumer (as `watch` prints them).
    case ndjson

    public var contentType: String {
        switch self {
        case .json: "application/json"
        case .ndjson: "application/x-ndjson"
        }
    }
}

/// One transaction's changes for one consumer, written once into an anonymous temporary file
/// (bounded memory however large the transaction), and handed to every attempt from its start.
///
/// Invariant: owns `descriptor` (unlinked, so the file vanishes with it) and closes it once.
public final class DeliveryPayload {
    public let descriptor: Int32
    public let byteCount: Int
    /// The changes the consumer's filter selected.
    public let changeCount: Int
    /// The transaction is a migration: delivered as a schema event, changes or not.
    public let isMigration: Bool

    /// Whether the consumer has anything to receive: changes, or a migration to follow.
    public var isDeliverable: Bool { changeCount > 0 || isMigration }

    init(descriptor: Int32, byteCount: Int, changeCount: Int, isMigration: Bool = false) {
        self.descriptor = descriptor
        self.byteCount = byteCount
        self.changeCount = changeCount
        self.isMigration = isMigration
    }

    deinit { close(descriptor) }

    /// Writes `transaction`'s changes that `consumer`'s filter selects, read from `snapshot` of the
    /// store `storeID`.
    public static func render(storeID: UUID, transaction: HistoryTransaction, consumer: Consumer, deliveryID: String,
                              format: DeliveryFormat, in snapshot: StoreSnapshot) throws -> DeliveryPayload {
        let descriptor = try AnonymousFile.create(prefix: "importer-delivery")
        do {
            let output = OutputSink(descriptor: descriptor)
            var changes = 0
            let parents = ChildParents(try snapshot.records.registeredRelationships())
            let migration = transaction.context == "migration"
                ? try snapshot.records.registeredModels().first { $0.transaction == transaction.number } : nil
            switch format {
            case .json:
                try JSONWriter.document(to: output) { json in
                    json.beginObject()
                    json.field("delivery_id", deliveryID)
                    json.field("consumer", consumer.name)
                    json.field("store_id", storeID.uuidString.lowercased())
                    json.writeTransactionFields(transaction)
                    json.key("totals")
                    json.writeCounts(transaction.totals)
                    json.key("entities")
                    json.writeEntities(transaction.entities)
                    if let migration { Self.writeMigration(migration, to: &json) }
                    json.key("changes")
                    json.beginArray()
                    try snapshot.forEachChange(in: [transaction], filter: consumer.filter) { change, _ in
                        json.writeChange(change, parents: parents)
                        changes += 1
                    }
                    json.endArray()
                    json.endObject()
                }
            case .ndjson:
                if let migration {
                    JSONWriter.document(to: output) { json in
                        json.beginObject()
                        json.field("consumer", consumer.name)
                        json.writeTransactionFields(transaction)
                        Self.writeMigration(migration, to: &json)
                        json.endObject()
                    }
                }
                try snapshot.forEachChange(in: [transaction], filter: consumer.filter) { change, transaction in
                    JSONWriter.document(to: output) { $0.writeChange(change, transaction: transaction, consumer: consumer.name, parents: parents) }
                    changes += 1
                }
            }
            try output.flush()
            let size = lseek(descriptor, 0, SEEK_END)
            return DeliveryPayload(descriptor: descriptor, byteCount: Int(max(size, 0)), changeCount: changes, isMigration: migration != nil)
        } catch let error as OutputError {
            close(descriptor)
            throw DeliveryError.payload("cannot write the changes for the receiver: \(error)")
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// `"migration": {"model_version": 2, "steps": ["rename Fireball.energy → energy_kt", …]}`: the
    /// schema event a downstream table follows.
    private static func writeMigration(_ model: StoredModel, to json: inout JSONWriter) {
        json.key("migration")
        json.beginObject()
        json.field("model_version", model.version)
        json.field("steps", strings: model.steps)
        json.endObject()
    }

    /// What a webhook reads and sends at a time.
    public static let chunkSize = 64 << 10

    /// The whole payload (tests; a webhook streams it in chunks).
    public func bytes() throws(DeliveryError) -> [UInt8] {
        try read(at: 0, count: byteCount)
    }

    /// Up to `count` bytes from `offset` (fewer only at the end); the file's offset is left alone.
    public func read(at offset: Int, count: Int) throws(DeliveryError) -> [UInt8] {
        try Self.read(descriptor, at: offset, count: min(count, max(byteCount - offset, 0)))
    }

    fileprivate static func read(_ descriptor: Int32, at start: Int, count: Int) throws(DeliveryError) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let read = result.withUnsafeMutableBytes { buffer in
                buffer.baseAddress.map { pread(descriptor, $0 + done, count - done, off_t(start + done)) } ?? -1
            }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { throw .payload("cannot read back the changes for the receiver: \(read == 0 ? "the file is shorter" : String(cString: strerror(errno)))") }
            done += read
        }
        return result
    }

    /// The payload as a request body: its bytes from the start, `chunkSize` at a time. Valid while
    /// the payload lives (its owner holds it for the request).
    public var chunks: Chunks { Chunks(descriptor: descriptor, byteCount: byteCount) }

    /// The bytes of a payload's file, read chunk by chunk as the body is sent.
    public struct Chunks: AsyncSequence, Sendable {
        public typealias Element = ByteBuffer
        let descriptor: Int32
        let byteCount: Int

        public struct AsyncIterator: AsyncIteratorProtocol {
            let descriptor: Int32
            let byteCount: Int
            var offset = 0

            public mutating func next() async throws -> ByteBuffer? {
                guard offset < byteCount else { return nil }
                let bytes = try DeliveryPayload.read(descriptor, at: offset, count: Swift.min(DeliveryPayload.chunkSize, byteCount - offset))
                offset += bytes.count
                return ByteBuffer(bytes: bytes)
            }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(descriptor: descriptor, byteCount: byteCount) }
    }

    /// Puts the file's offset back at its start, for the next receiver reading it as its input.
    public func rewind() {
        lseek(descriptor, 0, SEEK_SET)
    }
}
