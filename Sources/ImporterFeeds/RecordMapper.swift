import Foundation
import ImporterModel

/// Turns raw records of one feed into typed values of one entity, following a `FeedMapping`.
///
/// Created from a mapping (which names the fields to request from the reader), then configured
/// with the feed's header (which fields the feed supplies). Attributes whose field the feed does not
/// supply are not part of the batch, so the upsert leaves them untouched on existing records.
public struct RecordMapper: Sendable {
    public let entity: EntityDescription
    public let mapping: FeedMapping
    /// The field names to request from the reader, in slot order.
    public let requestedFields: [String]
    /// The mapping's `delete-marker` and the slot of its field.
    let deleteMarker: (marker: DeleteMarker, slot: Int)?
    /// Per requested field: what several values of it in one record become.
    public let repeatedPolicies: [RepeatedValues]

    /// What the hot loop needs to map one attribute: plain values only, so iterating plans never
    /// retains or releases anything.
    struct Plan: Sendable {
        var attributeIndex: Int
        var type: AttributeType
        var isOptional: Bool
        var slot: Int
        var signSlot: Int
        var suffixSign: Bool
        var trim: Bool
        var emptyIsNull: Bool
        var hasConstant: Bool
        var hasDefault: Bool
        var scale: Double?
        /// When `scale` is 10^k, k: applied to the decimal exponent while parsing, exactly.
        var scaleExponent: Int?
        var offset: Double?
        var negate: Bool
        /// Whether the text goes through capture, split or lookup (`TextTransform`).
        var transformsText: Bool
        /// Whether a number is written for people (`FieldMapping.numberFormat`).
        var hasNumberFormat: Bool
        /// `repeated: set`: the values are put in their canonical order (`CanonicalSet`).
        var isSet: Bool
        /// Index into `details`.
        var detail: Int
    }

    /// The rest of a plan: names, markers, formats, constants (read only on the paths that need them).
    struct PlanDetail: Sendable {
        var attribute: AttributeDescription
        var mapping: FieldMapping
        var negative: [[UInt8]]
        var positive: [[UInt8]]
        var dateFormat: DateTimeFormat?
        var textTransform: TextTransform?
        /// For `repeated: set`: the records whose set held a value more than once.
        var setRepeats: SetRepeats?
    }

    let allPlans: [Plan]
    private var plans: [Plan] = []
    let details: [PlanDetail]
    /// Indices of the supplied attributes, in entity order; set by `configure`.
    public private(set) var columns: [Int] = []
    public private(set) var keyPositions: [Int] = []
    /// Mapped fields a header-naming feed (CSV) lacks: their attributes are not supplied; set by
    /// `configure`.
    public internal(set) var fieldsMissingFromHeader: [(field: String, attributes: [String])] = []
    /// The feed's name and records pointer, for rejects; set by `configure`.
    private var sourceName = ""
    private(set) var recordsPointer: String?
    private(set) var childrenPointers: [String]?

    public init(entity: EntityDescription, mapping: FeedMapping) throws(ModelError) {
        self.entity = entity
        self.mapping = mapping
        var fields: [String] = []
        var policies: [RepeatedValues] = []
        func slot(_ name: String, _ policy: RepeatedValues = .reject) -> Int {
            if let index = fields.firstIndex(of: name) { return index }
            fields.append(name)
            policies.append(policy)
            return fields.count - 1
        }
        var plans: [Plan] = []
        var details: [PlanDetail] = []
        for (attributeIndex, attribute) in entity.attributes.enumerated() {
            guard let field = mapping.fields.first(where: { $0.attribute == attribute.name }) else { continue }
            var dateFormat: DateTimeFormat?
            if attribute.type == .date || attribute.type == .datetime {
                let pattern = field.format ?? (attribute.type == .date ? DateTimeFormat.canonicalDate : DateTimeFormat.canonicalDateTime)
                dateFormat = try DateTimeFormat(pattern: pattern, timeZone: field.timeZone ?? "UTC")
            }
            let sign = field.sign
            plans.append(Plan(
                attributeIndex: attributeIndex,
                type: attribute.type,
                isOptional: attribute.isOptional,
                slot: field.constant == nil ? field.field.map { slot($0, field.repeated) } ?? -1 : -1,
                signSlot: sign?.field.map { slot($0) } ?? -1,
                suffixSign: sign != nil && sign?.field == nil,
                trim: field.trim,
                emptyIsNull: field.emptyIsNull,
                hasConstant: field.constant != nil,
                hasDefault: field.defaultValue != nil,
                scale: field.scale,
                scaleExponent: field.scale.flatMap(NumberParser.powerOfTen),
                offset: field.offset,
                negate: field.negate,
                transformsText: field.transformsText,
                hasNumberFormat: field.numberFormat != nil && (attribute.type == .real || attribute.type == .integer),
                isSet: field.repeated == .set,
                detail: details.count
            ))
            details.append(PlanDetail(
                attribute: attribute,
                mapping: field,
                negative: sign?.negative.map { Array($0.utf8) } ?? [],
                positive: sign?.positive.map { Array($0.utf8) } ?? [],
                dateFormat: dateFormat,
                textTransform: field.transformsText ? try TextTransform(field) : nil,
                setRepeats: field.repeated == .set ? SetRepeats() : nil
            ))
        }
        self.allPlans = plans
        self.details = details
        deleteMarker = mapping.deleteMarker.map { ($0, slot($0.field, .first)) }
        self.requestedFields = fields
        self.repeatedPolicies = policies
    }

    /// A raw record for this mapper's requested fields, with their repeated-value policies.
    public func makeRawRecord() -> RawRecord {
        RawRecord(slotCount: requestedFields.count, repeated: repeatedPolicies)
    }

    /// Chooses the supplied attributes from the header of the feed `sourceName`. Fails when the feed
    /// has records but does not supply the unique key, or supplies a value without its sign field.
    public mutating func configure(header: FeedHeader, sourceName: String) throws(FeedError) {
        self.sourceName = sourceName
        recordsPointer = header.recordsPointer
        childrenPointers = header.childrenPointers
        let location = SourceLocation(source: sourceName, line: 1, column: 1)
        plans = allPlans.filter { plan in
            plan.hasConstant || (plan.slot >= 0 && header.supplied[plan.slot])
        }
        for plan in plans where plan.signSlot >= 0 && !header.supplied[plan.signSlot] {
            throw FeedError.shape(location, "the feed has field '\(requestedFields[plan.slot])' but not its sign field '\(requestedFields[plan.signSlot])'")
        }
        columns = plans.map(\.attributeIndex)
        keyPositions = entity.keyIndices.compactMap { columns.firstIndex(of: $0) }
        let anyField = header.supplied.contains(true)
        if anyField && keyPositions.count != entity.uniqueKey.count {
            let missing = entity.uniqueKey.filter { key in !plans.contains { details[$0.detail].attribute.name == key } }
            let fields = missing.compactMap { key in mapping.fields.first { $0.attribute == key }?.field }
            throw FeedError.shape(location, "the feed does not supply the unique key of \(entity.name): field(s) \(fields.joined(separator: ", "))")
        }
        if let names = header.columns { try checkColumns(header, names: names, location: location) }
    }

    /// Slots whose field a feed may leave out of every record without that meaning null: fields of
    /// optional attributes with no default, which the header says the feed supplies. Until one of
    /// its records has such a field (even as an explicit null), the feed has not shown that it
    /// supplies it (see `MappedFeed`).
    public var presenceSlots: [Int] {
        var slots: [Int] = []
        for plan in plans where plan.slot >= 0 && plan.isOptional && !plan.hasDefault && !plan.hasConstant
            && !entity.keyIndices.contains(plan.attributeIndex) && !slots.contains(plan.slot) {
            slots.append(plan.slot)
        }
        return slots
    }

    /// Stops supplying the attributes fed by `slots` (fields absent from every record read): they
    /// leave the batch's columns, so stored values stay untouched.
    public mutating func stopSupplying(_ slots: Set<Int>) {
        plans.removeAll { slots.contains($0.slot) }
        columns = plans.map(\.attributeIndex)
        keyPositions = entity.keyIndices.compactMap { columns.firstIndex(of: $0) }
    }

    /// Per attribute read in an IANA zone: the local times so far that happened twice (the hour
    /// repeated when clocks fall back), each read as its earlier instant.
    public var ambiguousLocalTimes: [(attribute: String, zone: String, count: Int)] {
        details.compactMap { detail in
            guard let zone = detail.dateFormat?.zone, case .named(let named) = zone, zone.ambiguous > 0 else { return nil }
            return (detail.attribute.name, named.identifier, zone.ambiguous)
        }
    }

    /// Per attribute stored as a set (`repeated: set`): the records so far whose set held a value
    /// more than once (kept once).
    public var setRepeats: [(attribute: String, count: Int)] {
        details.compactMap { detail in
            guard let count = detail.setRepeats?.count.load(ordering: .relaxed), count > 0 else { return nil }
            return (detail.attribute.name, count)
        }
    }

    /// The attribute names fed by the field of `slot`.
    public func attributes(fedBy slot: Int) -> [String] {
        allPlans.filter { $0.slot == slot }.map { details[$0.detail].attribute.name }
    }

    /// A new, empty batch for this mapper's columns.
    public func makeBatch(capacity: Int) -> RecordBatch {
        RecordBatch(columns: columns, keyPositions: keyPositions, capacity: capacity)
    }

    /// Maps `record` and appends it to `batch`, or returns why it is rejected (the batch is then
    /// unchanged).
    public func map(_ record: RawRecord, into batch: inout RecordBatch) -> Reject? {
        record.bytes.withUnsafeBufferPointer { bytes in
            let base = bytes.baseAddress ?? emptyBytes
            // Indexing the buffer passes each plan borrowed (a `for plan in plans` loop copies it).
            let rejected: Reject? = plans.withUnsafeBufferPointer { plans in
                for index in plans.indices {
                    if let reason = mapValue(plans[index], record, base, &batch) {
                        batch.discardPartialRecord()
                        return reject(plans[index], record, reason)
                    }
                }
                return nil
            }
            if let rejected { return rejected }
            batch.commitRecord(RecordOrigin(recordIndex: record.index, line: Int32(truncatingIfNeeded: record.line), column: Int32(truncatingIfNeeded: record.column)))
            return nil
        }
    }

    private func reject(_ plan: Plan, _ record: RawRecord, _ reason: String) -> Reject {
        let detail = details[plan.detail]
        var location = SourceLocation(source: sourceName, line: record.line, column: record.column, recordIndex: record.index)
        var raw: String?
        if plan.slot >= 0, record.slots[plan.slot].kind != .absent {
            let slot = record.slots[plan.slot]
            location.line = Int(slot.line)
            location.column = Int(slot.column)
            raw = record.text(of: plan.slot)
        }
        if let field = detail.mapping.field { location.path = path(of: field, in: record) }
        // A child's reject names its record (the one a bad child rejects), not its place in its parent.
        if mapping.childRecords != nil { location.recordIndex = record.parentIndex }
        return Reject(location: location, entity: entity.name, attribute: detail.attribute.name, reason: reason, rawValue: raw)
    }

    /// Appends the plan's value; returns a reason when the value cannot be mapped.
    @inline(__always)
    func mapValue(_ plan: Plan, _ record: RawRecord, _ base: UnsafePointer<UInt8>, _ batch: inout RecordBatch) -> String? {
        if plan.hasConstant { return appendValue(details[plan.detail].mapping.constant ?? .null, plan, &batch) }
        let slot = record.slots[plan.slot]
        if slot.occurrences > 1, case .reject = details[plan.detail].mapping.repeated {
            return "field '\(requestedFields[plan.slot])' has \(slot.occurrences) values in this record; "
                + "say in the mapping which to keep (repeated: first, last, all or join)"
        }
        var start = base + Int(slot.start)
        var count = Int(slot.count)
        if plan.isSet, slot.kind == .string, let repeats = details[plan.detail].setRepeats {
            let canonical = CanonicalSet.canonical(UnsafeBufferPointer(start: start, count: count))
            if canonical.repeated { repeats.count.add(1, ordering: .relaxed) }
            return canonical.text.withUnsafeBufferPointer { mapText(plan, record, base, $0.baseAddress ?? emptyBytes, $0.count, &batch) }
        }
        switch slot.kind {
        case .absent, .null:
            return appendNull(plan, &batch)
        case .boolTrue, .boolFalse:
            switch plan.type {
            case .boolean: batch.append(.integer(slot.kind == .boolTrue ? 1 : 0)); return nil
            case .text:
                let value = batch.appendText(slot.kind == .boolTrue ? "true" : "false")
                batch.append(value)
                return nil
            default: return "expected \(plan.type.rawValue), found a boolean"
            }
        case .composite:
            return "expected a single value, found an object or array"
        case .number, .string:
            break
        }
        if plan.trim {
            while count > 0, start.pointee == 0x20 || start.pointee == 0x09 { start += 1; count -= 1 }
            while count > 0, start[count - 1] == 0x20 || start[count - 1] == 0x09 { count -= 1 }
        }
        if plan.transformsText, let transform = details[plan.detail].textTransform {
            switch transform.apply(UnsafeBufferPointer(start: start, count: count)) {
            case .reject(let reason): return reason
            case .null: return appendNull(plan, &batch)
            case .text(let text):
                return text.withUnsafeBufferPointer { mapText(plan, record, base, $0.baseAddress ?? emptyBytes, $0.count, &batch) }
            }
        }
        return mapText(plan, record, base, start, count, &batch)
    }

    /// Maps a field's text (after trim and the text transforms) by the attribute's type.
    @inline(__always)
    private func mapText(_ plan: Plan, _ record: RawRecord, _ base: UnsafePointer<UInt8>, _ start: UnsafePointer<UInt8>, _ count: Int,
                         _ batch: inout RecordBatch) -> String? {
        var count = count
        if count == 0 && plan.emptyIsNull { return appendNull(plan, &batch) }
        if plan.hasNumberFormat, let format = details[plan.detail].mapping.numberFormat {
            var plain: [UInt8] = []
            guard format.normalize(UnsafeBufferPointer(start: start, count: count), into: &plain) else {
                return "expected a number written as \(format.example)"
            }
            var unformatted = plan
            unformatted.hasNumberFormat = false
            return plain.withUnsafeBufferPointer { mapText(unformatted, record, base, $0.baseAddress ?? emptyBytes, $0.count, &batch) }
        }
        switch plan.type {
        case .real, .integer:
            var negate = false
            if plan.suffixSign {
                guard let (marker, isNegative) = sign(start, count, plan, suffix: true) else {
                    return "expected a number ending with \(markers(plan, separator: "/"))"
                }
                count -= marker
                negate = isNegative
            }
            if plan.type == .integer, let reason = mapInteger(plan, record, base, start, count, negate: negate, &batch) {
                return reason.isEmpty ? nil : reason
            }
            guard var number = NumberParser.double(start, count: count, shift: plan.scaleExponent ?? 0) else {
                return "expected a number"
            }
            if plan.scaleExponent == nil, let scale = plan.scale { number *= scale }
            if let offset = plan.offset { number += offset }
            if plan.negate { number = -number }
            if plan.signSlot >= 0 {
                switch direction(record, base, plan) {
                case .some(let isNegative): negate = isNegative
                case .none:
                    return "the sign field '\(details[plan.detail].mapping.sign?.field ?? "")' is \(describeSign(record, plan)); expected \(markers(plan, separator: " or "))"
                }
            }
            if negate { number = -number }
            if plan.type == .integer {
                guard number == number.rounded() else { return "expected an integer" }
                // Past 2^53 a double no longer holds every integer: the text's own digits would be lost.
                guard abs(number) <= Self.exactDoubleIntegers else {
                    return "the integer \(String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)) cannot be scaled exactly (beyond ±2^53 after 'scale' or 'offset')"
                }
                batch.append(.integer(Int64(number)))
            } else {
                batch.append(.real(number))
            }
        case .text:
            let value = batch.appendText(start, count: count)
            batch.append(value)
        case .date, .datetime:
            let includeTime = plan.type == .datetime
            guard let value = batch.appendText({ details[plan.detail].dateFormat?.parse(start, count: count, includeTime: includeTime, into: &$0) ?? false }) else {
                return details[plan.detail].dateFormat?.rejection(start, count: count, includeTime: includeTime) ?? "expected a \(plan.type.rawValue)"
            }
            batch.append(value)
        case .boolean:
            guard let flag = Self.boolean(start, count) else { return "expected a boolean (true/false, 1/0, yes/no)" }
            batch.append(.integer(flag ? 1 : 0))
        }
        return nil
    }

    private func appendNull(_ plan: Plan, _ batch: inout RecordBatch) -> String? {
        if plan.hasDefault, let value = details[plan.detail].mapping.defaultValue { return appendValue(value, plan, &batch) }
        guard plan.isOptional else { return "a required attribute is null" }
        batch.append(.null)
        return nil
    }

    private func appendValue(_ value: Value, _ plan: Plan, _ batch: inout RecordBatch) -> String? {
        switch value {
        case .null:
            guard plan.isOptional else { return "a required attribute is null" }
            batch.append(.null)
        case .integer(let v): batch.append(plan.type == .real ? .real(Double(v)) : .integer(v))
        case .real(let v): batch.append(.real(v))
        case .text(let v):
            let text = batch.appendText(v)
            batch.append(text)
        }
        return nil
    }

}

extension RecordBatch {
    mutating func appendText(_ string: String) -> BatchValue {
        var string = string
        return string.withUTF8 { appendText($0.baseAddress ?? emptyBytes, count: $0.count) }
    }
}
