import ImporterModel
import ImporterStore

/// The deltas of several views of one entity from one statement, for dialects with `GROUPING
/// SETS` (PostgreSQL): one scan of the change rows (`ViewSQL.imagesQuery` over every attribute
/// the views read) grouped by each view's groups at once, instead of one `ViewSQL.delta` scan per
/// view. Each view's rows come out laid out as its `ViewSQL.delta` rows, for `ViewDeltaApplier`.
///
/// A view's rows also count the updates of attributes it does not read (another view's): such a
/// record stays in its groups, so its one row adds `new - old`, exactly 0, to the view's counts
/// and sums, and gives the extreme that leaves back (which needs no recompute, and can spare one:
/// a minimum or maximum that left with one record is known to be still held by another); a group
/// with nothing else is a neutral row, which `ViewDeltaApplier` skips unread. The deltas may thus
/// differ from `ViewSQL.delta`'s, never in what applying them gives (as `ViewDeltaScan`'s may).
///
/// Views grouped by the same expressions (in any order) share a grouping set; the sets are told
/// apart by `GROUPING(…)` over every distinct group expression (one bit each, at most 31).
package struct ViewDeltaSets {
    package let schemas: [ViewSQL]
    /// Every distinct group expression of the views, in the order met.
    private let expressions: [String]
    /// Per view, the positions in `expressions` of its groups, in its group order.
    private let groupPositions: [[Int]]
    /// The distinct grouping sets (positions in `expressions`, ascending).
    private let sets: [[Int]]
    /// Per view, the index in `sets` of its set.
    private let setOfView: [Int]
    /// Per view, where its aggregate columns lie in a row of `query`.
    private let aggregateColumns: [Range<Int>]

    /// Nil unless `schemas` are views of one entity whose distinct group expressions `GROUPING(…)`
    /// can number (at most 31).
    package init?(schemas: [ViewSQL]) {
        guard let entity = schemas.first?.entity.name, schemas.allSatisfy({ $0.entity.name == entity }) else { return nil }
        var expressions: [String] = []
        groupPositions = schemas.map { schema in
            schema.groupExpressions.map { expression in
                if let position = expressions.firstIndex(of: expression) { return position }
                expressions.append(expression)
                return expressions.count - 1
            }
        }
        guard expressions.count <= 31 else { return nil }
        self.expressions = expressions
        var sets: [[Int]] = []
        setOfView = groupPositions.map { positions in
            let set = Array(Set(positions)).sorted()
            if let index = sets.firstIndex(of: set) { return index }
            sets.append(set)
            return sets.count - 1
        }
        self.sets = sets
        var start = 1 + expressions.count
        aggregateColumns = schemas.map { schema in
            defer { start += schema.deltaAggregates.count }
            return start..<start + schema.deltaAggregates.count
        }
        self.schemas = schemas
    }

    /// The statement over the change rows with ids in parameters 1...2. Columns: `GROUPING(…)` of
    /// every group expression, the expressions, then each view's `ViewSQL.deltaAggregates`.
    package func query(oneTransaction: Bool) -> String {
        guard let first = schemas.first else { return "" }
        let attributes = schemas.reduce(into: Set<String>()) { $0.formUnion($1.view.storedAttributes(of: $1.entity)) }
        let grouped = schemas.reduce(into: Set<String>()) { $0.formUnion($1.view.groupedAttributes(of: $1.entity)) }
        let images = first.imagesQuery(oneTransaction: oneTransaction, attributes: attributes, grouped: grouped)
        let selections = ["GROUPING(\(expressions.joined(separator: ", ")))"] + expressions + schemas.flatMap(\.deltaAggregates)
        let groupingSets = sets.map { "(\($0.map { expressions[$0] }.joined(separator: ", ")))" }
        return "WITH \(images) SELECT \(selections.joined(separator: ", ")) FROM importer_images WHERE \(ViewSQL.hasImage) GROUP BY GROUPING SETS (\(groupingSets.joined(separator: ", ")))"
    }

    /// The rows of `query` split by view: for each view of `schemas`, its delta rows (groups in its
    /// order, then its aggregates' delta columns).
    package func deltaRows(_ rows: [[Value]]) throws -> [[[Value]]] {
        // GROUPING(e1, …, en) sets bit n-1-i when e_i is not grouped in the row's set.
        let all = (1 << expressions.count) - 1
        let maskOfSet = sets.map { set in set.reduce(all) { $0 & ~(1 << (expressions.count - 1 - $1)) } }
        let width = aggregateColumns.last?.upperBound ?? 1 + expressions.count
        var result = [[[Value]]](repeating: [], count: schemas.count)
        for row in rows {
            guard row.count == width, case .integer(let bits) = row[0], let set = maskOfSet.firstIndex(of: Int(bits)) else {
                throw StoreError.invariant("view deltas: a row of \(row.count) values that matches no grouping set")
            }
            for view in schemas.indices where setOfView[view] == set {
                result[view].append(groupPositions[view].map { row[1 + $0] } + row[aggregateColumns[view]])
            }
        }
        return result
    }
}
