import ImporterModel

/// A view group's values as a dictionary key for the in-memory aggregations (`ViewDeltaScan`,
/// SQLite's rebuild): single-column groups, the usual case, are keyed by their value without an
/// array per row.
package enum ViewGroupKey: Hashable {
    case single(Value)
    case many([Value])

    /// The key of the group whose values are `row[offset + column]` for each of `columns`.
    @inlinable
    package init(_ row: [Value], columns: [Int], offset: Int = 0) {
        self = columns.count == 1 ? .single(row[offset + columns[0]]) : .many(columns.map { row[offset + $0] })
    }

    @inlinable
    package var values: [Value] {
        switch self {
        case .single(let value): [value]
        case .many(let values): values
        }
    }
}
