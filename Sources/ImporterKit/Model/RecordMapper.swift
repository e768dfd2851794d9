import Foundation

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

    struct Plan: Sendable {
        var attribute: AttributeDescription
        var attributeIndex: Int
        var slot: Int
        var mapping: FieldMapping
        var signSlot: Int
        var negative: [[UInt8]]
        var positive: [[UInt8]]
        var suffixSign: Bool
        var dateFormat: DateTimeFormat?
    }

    private let allPlans: [Plan]
    private var plans: [Plan] = []
    /// Indices of the supplied attributes, in entity order; set by `configure`.
    public private(set) var columns: [Int] = []
    public private(set) var keyPositions: [Int] = []

    public init(entity: EntityDescription, mapping: FeedMapping) throws(ModelError) {
        self.entity = entity
        self.mapping = mapping
        var fields: [String] = []
        func slot(_ name: String) -> Int {
            if let index = fields.firstIndex(of: name) { return index }
            fields.append(name)
            return fields.count - 1
        }
        var plans: [Plan] = []
        for (attributeIndex, attribute) in entity.attributes.enumerated() {
            guard let field = mapping.fields.first(where: { $0.attribute == attribute.name }) else { continue }
            var dateFormat: DateTimeFormat?
            if attribute.type == .date || attribute.type == .datetime {
                let pattern = field.format ?? (attribute.type == .date ? DateTimeFormat.canonicalDate : DateTimeFormat.canonicalDateTime)
                dateFormat = try DateTimeFormat(pattern: pattern, timeZone: field.timeZone ?? "UTC")
            }
            let sign = field.sign
            plans.append(Plan(
                attribute: attribute,
                attributeIndex: attributeIndex,
                slot: field.constant == nil ? field.field.map(slot) ?? -1 : -1,
                mapping: field,
                signSlot: sign?.field.map(slot) ?? -1,
                negative: sign?.negative.map { Array($0.utf8) } ?? [],
                positive: sign?.positive.map { Array($0.utf8) } ?? [],
                suffixSign: sign != nil && sign?.field == nil,
                dateFormat: dateFormat
            ))
        }
        self.allPlans = plans
        self.requestedFields = fields
    }

    /// Chooses the supplied attributes from the feed's header. Fails when the feed has records but
    /// does not supply the unique key, or supplies a value without its sign field.
    public mutating func configure(header: FeedHeader, location: SourceLocation) throws(FeedError) {
        plans = allPlans.filter { plan in
            plan.mapping.constant != nil || (plan.slot >= 0 && header.supplied[plan.slot])
        }
        for plan in plans where plan.signSlot >= 0 && !header.supplied[plan.signSlot] {
            throw FeedError.shape(location, "the feed has field '\(requestedFields[plan.slot])' but not its sign field '\(requestedFields[plan.signSlot])'")
        }
        columns = plans.map(\.attributeIndex)
        keyPositions = entity.keyIndices.compactMap { columns.firstIndex(of: $0) }
        let anyField = header.supplied.contains(true)
        if anyField && keyPositions.count != entity.uniqueKey.count {
            let missing = entity.uniqueKey.filter { key in !plans.contains { $0.attribute.name == key } }
            let fields = missing.compactMap { key in mapping.fields.first { $0.attribute == key }?.field }
            throw FeedError.shape(location, "the feed does not supply the unique key of \(entity.name): field(s) \(fields.joined(separator: ", "))")
        }
    }

    /// A new, empty batch for this mapper's columns.
    public func makeBatch(sourceName: String, capacity: Int) -> RecordBatch {
        RecordBatch(columns: columns, keyPositions: keyPositions, sourceName: sourceName, capacity: capacity)
    }

    /// Maps `record` and appends it to `batch`, or returns why it is rejected (the batch is then
    /// unchanged).
    public func map(_ record: RawRecord, into batch: inout RecordBatch) -> Reject? {
        record.bytes.withUnsafeBufferPointer { bytes in
            let base = bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!
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
        var location = SourceLocation(source: "", line: record.line, column: record.column, recordIndex: record.index)
        var raw: String?
        if plan.slot >= 0, record.slots[plan.slot].kind != .absent {
            let slot = record.slots[plan.slot]
            location.line = Int(slot.line)
            location.column = Int(slot.column)
            raw = record.text(of: plan.slot)
        }
        if let field = plan.mapping.field { location.path = field }
        return Reject(location: location, entity: entity.name, attribute: plan.attribute.name, reason: reason, rawValue: raw)
    }

    /// Appends the plan's value; returns a reason when the value cannot be mapped.
    @inline(__always)
    private func mapValue(_ plan: Plan, _ record: RawRecord, _ base: UnsafePointer<UInt8>, _ batch: inout RecordBatch) -> String? {
        let field = plan.mapping
        if let constant = field.constant { return appendValue(constant, plan, &batch) }
        let slot = record.slots[plan.slot]
        var start = base + Int(slot.start)
        var count = Int(slot.count)
        switch slot.kind {
        case .absent, .null:
            return appendNull(plan, &batch)
        case .boolTrue, .boolFalse:
            switch plan.attribute.type {
            case .boolean: batch.append(.integer(slot.kind == .boolTrue ? 1 : 0)); return nil
            case .text:
                let value = batch.appendText(slot.kind == .boolTrue ? "true" : "false")
                batch.append(value)
                return nil
            default: return "expected \(plan.attribute.type.rawValue), found a boolean"
            }
        case .number, .string:
            break
        }
        if field.trim {
            while count > 0, start.pointee == 0x20 || start.pointee == 0x09 { start += 1; count -= 1 }
            while count > 0, start[count - 1] == 0x20 || start[count - 1] == 0x09 { count -= 1 }
        }
        if count == 0 && field.emptyIsNull { return appendNull(plan, &batch) }
        switch plan.attribute.type {
        case .real, .integer:
            var negate = false
            if plan.suffixSign {
                guard let (marker, isNegative) = suffix(start, count, plan) else {
                    return "expected a number ending with \((plan.negative + plan.positive).map { String(decoding: $0, as: UTF8.self) }.joined(separator: "/"))"
                }
                count -= marker
                negate = isNegative
            }
            guard var number = NumberParser.double(start, count: count) else {
                return "expected a number"
            }
            if let scale = field.scale { number *= scale }
            if plan.signSlot >= 0 {
                switch direction(record, base, plan) {
                case .some(let isNegative): negate = isNegative
                case .none:
                    return "the sign field '\(field.sign?.field ?? "")' is \(describeSign(record, plan)); expected \((plan.negative + plan.positive).map { String(decoding: $0, as: UTF8.self) }.joined(separator: " or "))"
                }
            }
            if negate { number = -number }
            if plan.attribute.type == .integer {
                guard number == number.rounded(), abs(number) < 9.2e18 else { return "expected an integer" }
                batch.append(.integer(Int64(number)))
            } else {
                batch.append(.real(number))
            }
        case .text:
            let value = batch.appendText(start, count: count)
            batch.append(value)
        case .date, .datetime:
            guard let format = plan.dateFormat else { return "no date format" }
            let includeTime = plan.attribute.type == .datetime
            guard let value = batch.appendText({ format.parse(start, count: count, includeTime: includeTime, into: &$0) }) else {
                return "expected a \(plan.attribute.type.rawValue) in the format \(field.format ?? (includeTime ? DateTimeFormat.canonicalDateTime : DateTimeFormat.canonicalDate))"
            }
            batch.append(value)
        case .boolean:
            switch String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self).lowercased() {
            case "true", "1", "yes": batch.append(.integer(1))
            case "false", "0", "no": batch.append(.integer(0))
            default: return "expected a boolean (true/false, 1/0, yes/no)"
            }
        }
        return nil
    }

    private func appendNull(_ plan: Plan, _ batch: inout RecordBatch) -> String? {
        if let value = plan.mapping.defaultValue { return appendValue(value, plan, &batch) }
        guard plan.attribute.isOptional else { return "a required attribute is null" }
        batch.append(.null)
        return nil
    }

    private func appendValue(_ value: Value, _ plan: Plan, _ batch: inout RecordBatch) -> String? {
        switch value {
        case .null:
            guard plan.attribute.isOptional else { return "a required attribute is null" }
            batch.append(.null)
        case .integer(let v): batch.append(plan.attribute.type == .real ? .real(Double(v)) : .integer(v))
        case .real(let v): batch.append(.real(v))
        case .text(let v):
            let text = batch.appendText(v)
            batch.append(text)
        }
        return nil
    }

    /// The length of a sign marker suffix and whether it means negative.
    private func suffix(_ start: UnsafePointer<UInt8>, _ count: Int, _ plan: Plan) -> (Int, Bool)? {
        for (markers, negative) in [(plan.negative, true), (plan.positive, false)] {
            for marker in markers where marker.count < count {
                if memcmp(start + count - marker.count, marker, marker.count) == 0 { return (marker.count, negative) }
            }
        }
        return nil
    }

    /// Whether the sign field says negative, or nil when it holds no known marker.
    private func direction(_ record: RawRecord, _ base: UnsafePointer<UInt8>, _ plan: Plan) -> Bool? {
        let slot = record.slots[plan.signSlot]
        guard slot.kind == .string else { return nil }
        let count = Int(slot.count)
        let start = base + Int(slot.start)
        if plan.negative.contains(where: { $0.count == count && memcmp(start, $0, count) == 0 }) { return true }
        if plan.positive.contains(where: { $0.count == count && memcmp(start, $0, count) == 0 }) { return false }
        return nil
    }

    private func describeSign(_ record: RawRecord, _ plan: Plan) -> String {
        switch record.slots[plan.signSlot].kind {
        case .absent, .null: "null"
        default: "'\(record.text(of: plan.signSlot))'"
        }
    }
}

extension RecordBatch {
    mutating func appendText(_ string: String) -> BatchValue {
        var string = string
        return string.withUTF8 { appendText($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: $0.count) }
    }
}
