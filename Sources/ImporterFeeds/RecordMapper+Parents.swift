import ImporterModel

extension RecordMapper {
    /// The values of `attributes` in `record`, as `map` would store them, for a record that stands
    /// for a parent only (`RawRecord.isParentOnly`: its children's key fields are absent); nil
    /// when one of them is not mapped or cannot be read.
    public func values(of attributes: [String], in record: RawRecord) -> [Value]? {
        let chosen = attributes.compactMap { name in allPlans.first { details[$0.detail].attribute.name == name } }
        guard chosen.count == attributes.count else { return nil }
        var batch = RecordBatch(columns: chosen.map(\.attributeIndex), keyPositions: Array(chosen.indices), capacity: 1)
        let failed = record.bytes.withUnsafeBufferPointer { bytes in
            chosen.contains { mapValue($0, record, bytes.baseAddress ?? emptyBytes, &batch) != nil }
        }
        guard !failed else { return nil }
        batch.commitRecord(RecordOrigin(recordIndex: record.index, line: Int32(truncatingIfNeeded: record.line), column: Int32(truncatingIfNeeded: record.column)))
        return batch.keyValues(0)
    }
}
