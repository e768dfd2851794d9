import ImporterModel

/// The mapping's `delete-marker` read from a record.
extension RecordMapper {
    /// Whether `record` is marked deleted by the mapping's `delete-marker` (never without one).
    public func isMarkedDeleted(_ record: RawRecord) -> Bool {
        guard let (marker, slot) = deleteMarker else { return false }
        switch record.slots[slot].kind {
        case .absent, .null: return false
        default: return marker.marks(record.text(of: slot))
        }
    }

    /// Whether `record` holds the `delete-marker` field at all (null included).
    public func hasMarkerField(_ record: RawRecord) -> Bool {
        guard let slot = deleteMarker?.slot else { return false }
        return record.slots[slot].kind != .absent
    }
}
