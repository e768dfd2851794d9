import ImporterModel

/// What the mapper checks beside the values' types: the columns a header lacks, and integers
/// read from their digits.
extension RecordMapper {
    /// Notes the mapped fields a header lacks; a required attribute's (no default) is an error
    /// naming the columns the header has.
    mutating func checkColumns(_ header: FeedHeader, names: [String], location: SourceLocation) throws(FeedError) {
        var missing: [(field: String, attributes: [String])] = []
        var required: [String] = []
        for plan in allPlans where plan.slot >= 0 && !plan.hasConstant && !header.supplied[plan.slot] {
            let field = requestedFields[plan.slot]
            let attribute = details[plan.detail].attribute.name
            if let index = missing.firstIndex(where: { $0.field == field }) { missing[index].attributes.append(attribute) } else { missing.append((field, [attribute])) }
            if !plan.isOptional && !plan.hasDefault { required.append("'\(field)' (attribute \(attribute))") }
        }
        fieldsMissingFromHeader = missing
        guard !required.isEmpty else { return }
        let shown = names.prefix(12).map { "'\($0)'" }.joined(separator: ", ") + (names.count > 12 ? ", …" : "")
        throw FeedError.shape(location, "the header lacks the column\(required.count == 1 ? "" : "s") of required \(entity.name) "
            + "\(required.count == 1 ? "attribute" : "attributes") \(required.joined(separator: ", ")) (renamed or dropped upstream?); it has \(shown)")
    }

    /// The largest magnitude up to which every integer is a double.
    static let exactDoubleIntegers = 9_007_199_254_740_992.0

    /// An integer attribute's text that is plain decimal digits, mapped from its digits into 64
    /// bits (never through a double, which rounds past 2^53): appended, and "" returned; a
    /// located reason when it lies outside the 64-bit range; nil when the text is not plain digits
    /// or a `scale` or `offset` applies (the caller's decimal path then takes it).
    @inline(__always)
    func mapInteger(_ plan: Plan, _ record: RawRecord, _ base: UnsafePointer<UInt8>, _ start: UnsafePointer<UInt8>, _ count: Int,
                            negate: Bool, _ batch: inout RecordBatch) -> String? {
        guard plan.scale == nil, plan.offset == nil, count > 0 else { return nil }
        guard let value = NumberParser.integer(start, count: count) else {
            return NumberParser.isDecimalInteger(start, count: count)
                ? "the integer \(String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)) is outside the 64-bit range (\(Int64.min) to \(Int64.max))"
                : nil
        }
        var negative = negate != plan.negate
        if plan.signSlot >= 0 {
            guard let isNegative = direction(record, base, plan) else { return nil }
            negative = isNegative != plan.negate
        }
        guard negative else {
            batch.append(.integer(value))
            return ""
        }
        guard value != Int64.min else { return "the integer \(value) negated is outside the 64-bit range" }
        batch.append(.integer(-value))
        return ""
    }
}
