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

    /// Where `field` of `record` is in the document: under the records' pointer when there is one
    /// (a child's own field under its parent's array and place, a child's `../` field in its parent).
    func path(of field: String, in record: RawRecord) -> String {
        guard let pointer = recordsPointer else { return field }
        func member(_ field: String) -> String { field.hasPrefix("/") ? field : "/" + field }
        guard let arrays = childrenPointers else { return "\(pointer)/\(record.index)" + member(field) }
        // Each array above the children's with the place in it (unknown: `*`).
        var places = record.enclosingPlaces.reversed().map(String.init)
        places += Array(repeating: "*", count: max(0, arrays.count - 1 - places.count))
        let children = zip(arrays, places).map { "\($0)/\($1)" }.joined() + (arrays.last ?? "")
        if field.hasPrefix(ChildRecords.parentPrefix) { return "\(pointer)/\(record.parentIndex)" + member(String(field.dropFirst(ChildRecords.parentPrefix.count))) }
        return "\(pointer)/\(record.parentIndex)\(children)/\(record.index)" + member(field)
    }
}
