import Foundation
import ImporterFeeds
import ImporterModel

/// A feed opened for reading: its records read and mapped into batches of its entity, the same
/// way for an import and for a check.
///
/// Absent is not null. In object formats (JSON, NDJSON, XML) a record may leave a field out; a
/// field that no record of the feed has is not supplied: its attribute leaves the batches, so
/// stored values stay untouched, and a warning names it. To know that without holding the feed,
/// the first batches are held back until every optional field has been seen (an explicit null
/// counts) or `presenceWindow` records have been read. Fields still unseen then are looked for in
/// the rest of the feed by a second, presence-only reader (`PresenceScan`), so that a field first
/// met late is stored wherever it appears. Only standard input and pipes, which cannot be read
/// twice, decide at the window: a field first met after it keeps its stored values, and its values
/// are counted in a warning.
public final class MappedFeed {
    public let source: ByteSource
    /// Configured with the feed's header: its `columns` are the attributes the feed supplies
    /// (final once the first batch has been handed over).
    public private(set) var mapper: RecordMapper
    private let reader: RecordReader
    private let input: FeedInput
    /// Records read so far, rejected ones included.
    public private(set) var records = 0
    /// How many records may be held back while waiting for every field to show up.
    public var presenceWindow = 10_000
    /// Per requested field, counted when `collectsFieldCounts` is set (for `check`).
    public private(set) var fieldCounts: [FieldCount]
    public var collectsFieldCounts = false
    /// Fields the feed turned out not to supply, and fields met only after the window.
    public private(set) var warnings: [String] = []
    /// Refuse a CSV whose last row ends without a line break (its last field may have been cut).
    public var requiresFinalLineBreak = false
    /// Per attribute the feed supplies, the records that left its field out (stored as null,
    /// though the feed did not say null), once read: not for the feed's entity's key.
    public private(set) var absences: [FieldAbsence] = []
    /// For a mapping of children (`FeedMapping.childRecords`): the parent keys whose array of
    /// children the feed left out (their stored children are kept), in the parent key's order.
    public private(set) var keptParents: [[Value]] = []
    /// The child entity's attributes that hold its parent's key (fields read from the parent).
    private let parentKey: [String]
    /// For a mapping of children: the record indices of the parents their own mapping rejected,
    /// whose children are left out (no child is stored for a parent that was not).
    public var rejectedParents: Set<Int> = []
    /// Records not to write, rejected for one of their children (`RejectedChildren`): read, their
    /// keys kept like a reject's.
    public var withheld: Set<Int> = []
    /// For a mapping of children: those of `rejectedParents` withheld for a rejected child, whose
    /// children are still mapped, for their rejects, and left out.
    public var withheldParents: Set<Int> = []
    /// Children left out because their parent was rejected.
    public private(set) var childrenOfRejected = 0
    /// The keys of the rejected records whose key could be read, in the key's order: the feed
    /// holds them, so a sync keeps their stored records.
    public private(set) var rejectedKeys: [[Value]] = []
    /// Rejected records whose key could not be read: which stored records they stand for is unknown.
    public private(set) var unkeyedRejects = 0
    /// The keys of the records the feed marked deleted (`delete-marker`), once one is.
    private(set) var markedKeys: MarkedKeys?
    /// Where marked keys beyond those kept in memory are spilled.
    var spoolDirectory = NSTemporaryDirectory()

    deinit {
        markedKeys?.close()
    }

    /// The marked keys, moved out: their spill file is the caller's to close.
    func takeMarkedKeys() -> MarkedKeys? {
        defer { markedKeys = nil }
        return markedKeys
    }
    /// Whether any record held the `delete-marker` field: a feed where none does is warned of.
    private var markerFieldSeen = false
    /// Fields the records hold and the mapping does not read, once read to the end (`unmapped:`).
    public private(set) var unmapped: [UnmappedField] = []
    /// The parents without a child element (XML): empty lists, unless no parent has one.
    private var emptyLists: [[Value]] = []

    /// Records of a feed that supplies a field but left it out, counted per attribute.
    public struct FieldAbsence: Sendable, Equatable {
        public var entity: String
        public var attribute: String
        public var field: String
        public var records: Int
    }

    /// How often one field appeared in the feed's records.
    public struct FieldCount: Sendable, Equatable {
        public var field: String
        public var present = 0
        public var null = 0
        public var repeated = 0
    }

    /// Opens the feed and reads up to its first record.
    public init(_ input: FeedInput, entity: EntityDescription) throws {
        source = try input.request == nil ? ByteSource(path: input.path) : ByteSource(path: input.path, name: input.name)
        reader = try FeedReaders.make(for: input.mapping, source: source)
        self.input = input
        parentKey = input.mapping.childRecords == nil ? [] : input.mapping.fields.filter { $0.field?.hasPrefix(ChildRecords.parentPrefix) == true }.map(\.attribute)
        var mapper = try RecordMapper(entity: entity, mapping: input.mapping)
        try mapper.configure(header: try reader.open(requesting: mapper.requestedFields), sourceName: source.name)
        self.mapper = mapper
        fieldCounts = mapper.requestedFields.map { FieldCount(field: $0) }
        for (field, attributes) in mapper.fieldsMissingFromHeader {
            warnings.append("\(source.name): the header has no column '\(field)' (renamed or dropped upstream?): "
                + "\(attributes.count == 1 ? "attribute \(attributes[0])" : "attributes \(attributes.joined(separator: ", "))") not supplied, stored values kept")
        }
    }

    /// How a CSV feed is read (its mapping's dialect, a `.tsv` file's tab); nil for other formats.
    public var dialect: CSVDialect? { (reader as? CSVRecordsReader)?.dialect }

    /// Bytes consumed so far, and the total when known.
    public var progress: (read: Int, total: Int?) { reader.progress }

    /// Reads every record: a rejected one goes to `onReject`; mapped ones are collected into
    /// batches of `batchSize`, each handed to `onBatch` when full, and the last one when not empty.
    public func read(batchSize: Int, onReject: (Reject) throws -> Void, onBatch: (RecordBatch) throws -> Void) throws {
        try read(batchSize: batchSize, onReject: onReject) { (batch: inout RecordBatch) in try onBatch(batch) }
    }

    /// `read`, handing each batch over in place: `handOff` may swap it for an empty batch of the
    /// same columns (one it has finished with), which the reader then fills, so that batches are
    /// reused instead of reallocated. Whatever `handOff` leaves is emptied before filling.
    public func read(batchSize: Int, onReject: (Reject) throws -> Void, handOff: (inout RecordBatch) throws -> Void) throws {
        var presence = Presence(waitingFor: mapper.presenceSlots)
        var absent = Array(repeating: 0, count: mapper.requestedFields.count)
        let counted = mapper.presenceSlots
        var held: [RecordBatch] = []
        var batch = mapper.makeBatch(capacity: batchSize)
        var record = mapper.makeRawRecord()
        // A local copy: calling the property's `map` copied the whole mapper (retaining each of
        // its references) once per record, ~7 % of a reload's CPU; refreshed when `release` changes it.
        var mapper = self.mapper
        var scratch = mapper.makeBatch(capacity: 1)
        while try reader.next(into: &record) {
            if try passes(record, mapper: mapper, scratch: &scratch, onReject: onReject) { continue }
            if collectsFieldCounts { count(record) }
            presence.observe(record)
            for slot in counted where record.slots[slot].kind == .absent { absent[slot] += 1 }
            if let reject = mapper.map(record, into: &batch) {
                if !parentKey.isEmpty { keepChildren(of: record, mapper: mapper) } else { keepRejected(record, mapper: mapper) }
                try onReject(reject)
            } else if batch.count >= batchSize {
                if presence.isDeciding {
                    held.append(batch)
                    batch = mapper.makeBatch(capacity: batchSize)
                } else {
                    try handOff(&batch)
                    batch.removeAll()
                }
            }
            if presence.isDeciding && records == presenceWindow { lookAhead(&presence) }
            if presence.isDeciding && (presence.isSettled || records >= presenceWindow) {
                batch = try release(&presence, held: &held, current: batch, batchSize: batchSize, handOff: handOff)
                mapper = self.mapper
            }
        }
        if presence.isDeciding {
            batch = try release(&presence, held: &held, current: batch, batchSize: batchSize, handOff: handOff)
        }
        if !batch.isEmpty { try handOff(&batch) }
        try finish(presence, absent: absent, ambiguousLocalTimes: mapper.ambiguousLocalTimes, setRepeats: mapper.setRepeats)
    }

    /// Whether a record of a child mapping is a child to map: a parent-only record keeps its
    /// parent's stored children, and a child of a rejected parent is left out.
    private func admits(_ record: RawRecord, mapper: RecordMapper) -> Bool {
        if record.isParentOnly {
            if record.mayBeEmptyList {
                if let key = mapper.values(of: parentKey, in: record) { emptyLists.append(key) }
            } else {
                keepChildren(of: record, mapper: mapper)
            }
            return false
        }
        guard !rejectedParents.isEmpty, rejectedParents.contains(record.parentIndex) else { return true }
        childrenOfRejected += 1
        return false
    }

    /// Counts `record` as read, unless it is a child not to map; returns whether it is read past
    /// unmapped: such a child (a withheld parent's is mapped for its reject only), or a withheld record.
    private func passes(_ record: RawRecord, mapper: RecordMapper, scratch: inout RecordBatch, onReject: (Reject) throws -> Void) throws -> Bool {
        if !parentKey.isEmpty, !admits(record, mapper: mapper) {
            try rejectIfWithheld(record, mapper: mapper, scratch: &scratch, onReject: onReject)
            return true
        }
        records += 1
        if !markerFieldSeen, mapper.hasMarkerField(record) { markerFieldSeen = true }
        if mapper.isMarkedDeleted(record) {
            try markDeleted(record, mapper: mapper, onReject: onReject)
            return true
        }
        guard !withheld.isEmpty, withheld.contains(record.index) else { return false }
        keepRejected(record, mapper: mapper)
        return true
    }

    /// Notes the key of a record marked deleted; one whose key cannot be read is a reject (a
    /// record is never deleted on a guess).
    private func markDeleted(_ record: RawRecord, mapper: RecordMapper, onReject: (Reject) throws -> Void) throws {
        if let key = mapper.values(of: mapper.entity.uniqueKey, in: record) {
            if markedKeys == nil { markedKeys = MarkedKeys(directory: spoolDirectory) }
            try markedKeys?.append(key)
            return
        }
        var location = SourceLocation(source: source.name, line: record.line, column: record.column)
        location.recordIndex = record.index
        try onReject(Reject(location: location, entity: mapper.entity.name, attribute: nil,
                            reason: "marked deleted (\(input.mapping.deleteMarker?.field ?? "delete-marker")), but its key cannot be read", rawValue: nil))
    }

    /// A child of a withheld parent is mapped, not written: its parent's reject names it.
    private func rejectIfWithheld(_ record: RawRecord, mapper: RecordMapper, scratch: inout RecordBatch, onReject: (Reject) throws -> Void) throws {
        guard !record.isParentOnly, withheldParents.contains(record.parentIndex) else { return }
        if let reject = mapper.map(record, into: &scratch) { try onReject(reject) }
        scratch.removeAll()
    }

    /// Keeps the stored children of a parent whose array the feed left out, or one of whose
    /// children was rejected (a child not read is not deleted); a parent whose key cannot be read
    /// is rejected by its own mapping, and its children are kept.
    private func keepChildren(of record: RawRecord, mapper: RecordMapper) {
        if let key = mapper.values(of: parentKey, in: record) { keptParents.append(key) }
    }

    /// Notes a rejected record's key, when it can be read (`rejectedKeys`).
    private func keepRejected(_ record: RawRecord, mapper: RecordMapper) {
        if let key = mapper.values(of: mapper.entity.uniqueKey, in: record) { rejectedKeys.append(key) } else { unkeyedRejects += 1 }
    }

    /// At the window, with fields still unseen: looks for them in the rest of the file, when it
    /// can be read again (`PresenceScan`).
    private func lookAhead(_ presence: inout Presence) {
        guard !presence.isSettled, source.totalBytes != nil else { return }
        presence.markSeen(PresenceScan(input: input, fields: mapper.requestedFields, record: mapper.makeRawRecord())
            .seen(among: presence.unseen, after: records))
    }

    /// The warnings of a feed read to its end, and its end checked.
    private func finish(_ presence: Presence, absent: [Int], ambiguousLocalTimes: [(attribute: String, zone: String, count: Int)],
                        setRepeats: [(attribute: String, count: Int)]) throws {
        noteUnsupplied(presence)
        noteAbsences(absent, dropped: presence.dropped)
        for (attribute, zone, count) in ambiguousLocalTimes {
            warnings.append("\(source.name): \(count) local time\(count == 1 ? "" : "s") of attribute \(attribute) happened twice in \(zone) "
                + "(the hour repeated when clocks fall back): each was read as its earlier instant")
        }
        if records == 0, let path = input.mapping.childRecords?.path {
            // No child anywhere: a path that no longer matches is said, never taken for empty lists.
            if !emptyLists.isEmpty {
                warnings.append("\(source.name): no record has a child element at \(path): the stored \(mapper.entity.name) records are kept")
                keptParents += emptyLists
            } else if !keptParents.isEmpty {
                warnings.append("\(source.name): no record has a list at \(path): the stored \(mapper.entity.name) records are kept")
            }
        }
        emptyLists = []
        if let marker = input.mapping.deleteMarker, records > 0, !markerFieldSeen {
            warnings.append("\(source.name): no record has the delete-marker field '\(marker.field)' (renamed upstream?): no record was taken as deleted")
        }
        if childrenOfRejected > 0 {
            warnings.append("\(source.name): \(childrenOfRejected) \(mapper.entity.name) record(s) not written: their parent record was rejected")
        }
        for (attribute, count) in setRepeats {
            warnings.append("\(source.name): \(count) record\(count == 1 ? "" : "s") listed a value of attribute \(attribute) more than once "
                + "(repeated: set keeps each value once)")
        }
        try checkUnmapped()
        try checkEnd()
    }

    /// The fields the records hold and the mapping does not read (its children's lists aside),
    /// under its `unmapped:` contract: kept in `unmapped` for the run to warn of those it has not
    /// seen before (`warn`), or the feed refused (`fail`). Not for a mapping of children.
    private func checkUnmapped() throws(FeedError) {
        let mapping = input.mapping
        guard mapping.childRecords == nil, mapping.unmapped != .ignore else { return }
        // XML names the elements by their local name (`/default:xref` is `/xref`).
        let lists = mapping.format != .xml ? input.childLists : input.childLists.map { list in
            list.split(separator: "/", omittingEmptySubsequences: false).map { $0.split(separator: ":").last.map(String.init) ?? "" }.joined(separator: "/")
        }
        unmapped = reader.unmappedFields.filter { field in !lists.contains { field.name == $0 || field.name.hasPrefix($0 + "/") } }
        guard mapping.unmapped == .fail, let first = unmapped.first else { return }
        let more = unmapped.count - 1
        throw FeedError.shape(SourceLocation(source: source.name, line: 1, column: 1),
                              Self.describe(first, mapping: mapping.name) + (more > 0 ? " (and \(more) more)" : "")
                                + "; its mapping says unmapped: fail (map the field, or say unmapped: warn or ignore)")
    }

    /// `field '/properties/felt' (first in record 3) is not mapped by feed mapping usgs`.
    public static func describe(_ field: UnmappedField, mapping: String) -> String {
        "field '\(field.name)' (first in record \(field.record + 1)) is not mapped by feed mapping \(mapping)"
    }

    /// Warns of the fields settled as not supplied: absent from every record, or first met after
    /// the window of a feed that could not be read twice.
    private func noteUnsupplied(_ presence: Presence) {
        // A feed with no record says nothing of its fields (an empty snapshot's own refusal comes
        // first, not a page of fields "absent" from nothing).
        for slot in presence.dropped.sorted() where records > 0 {
            if let count = presence.late[slot] {
                warnings.append("\(source.name): field '\(mapper.requestedFields[slot])' first appears after \(presenceWindow) records without it, "
                    + "in \(count) record(s): \(describe(slot)) not supplied by this feed, stored values kept")
            } else {
                warnings.append("\(source.name): field '\(mapper.requestedFields[slot])' is absent from every record: "
                    + "\(describe(slot)) not supplied, stored values kept")
            }
        }
    }

    /// Counts, and warns of, the records that left out a field the feed supplies: each of them
    /// stores null for its attributes though the feed never said null.
    private func noteAbsences(_ absent: [Int], dropped: Set<Int>) {
        for slot in absent.indices where absent[slot] > 0 && !dropped.contains(slot) {
            let names = mapper.attributes(fedBy: slot)
            for name in names {
                absences.append(FieldAbsence(entity: mapper.entity.name, attribute: name, field: mapper.requestedFields[slot], records: absent[slot]))
            }
            warnings.append("\(source.name): field '\(mapper.requestedFields[slot])' is absent from \(absent[slot]) of \(records) records: "
                + "\(describe(slot)) stored as null there (an absent field, not an explicit null)")
        }
    }

    /// A CSV file that ends inside its last row, after an unquoted field: warned of, or refused
    /// when `requiresFinalLineBreak`.
    private func checkEnd() throws(FeedError) {
        if let note = (reader as? XMLRecordsReader)?.emptyNote { warnings.append("\(source.name): \(note)") }
        guard let csv = reader as? CSVRecordsReader, let line = csv.unterminatedLastRow else { return }
        let fact = "the file ends without a line break after its last row (line \(line)), as a download cut short does, so that row's last field may be cut"
        if requiresFinalLineBreak {
            throw FeedError.shape(SourceLocation(source: source.name, line: line, column: 1), fact + " (--require-final-newline)")
        }
        warnings.append("\(source.name): \(fact) (--require-final-newline refuses such files)")
    }

    private func describe(_ slot: Int) -> String {
        let names = mapper.attributes(fedBy: slot)
        return names.count == 1 ? "attribute \(names[0])" : "attributes \(names.joined(separator: ", "))"
    }

    /// Settles which fields the feed supplies, hands the held batches over without the fields it
    /// does not, and returns the batch being filled in the final columns.
    private func release(_ presence: inout Presence, held: inout [RecordBatch], current: RecordBatch, batchSize: Int,
                         handOff: (inout RecordBatch) throws -> Void) throws -> RecordBatch {
        presence.settle()
        var current = current
        if !presence.dropped.isEmpty {
            mapper.stopSupplying(presence.dropped)
            held = held.map { $0.projected(to: mapper.columns, keyPositions: mapper.keyPositions) }
            current = current.projected(to: mapper.columns, keyPositions: mapper.keyPositions)
        }
        for index in held.indices { try handOff(&held[index]) }
        held.removeAll()
        return current
    }

    private func count(_ record: RawRecord) {
        for slot in record.slots.indices {
            let value = record.slots[slot]
            guard value.kind != .absent else { continue }
            fieldCounts[slot].present += 1
            if value.kind == .null { fieldCounts[slot].null += 1 }
            if value.occurrences > 1 { fieldCounts[slot].repeated += 1 }
        }
    }
}
