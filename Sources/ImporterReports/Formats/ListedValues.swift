import Foundation
import ImporterModel
import ImporterStore

extension Change {
    /// What every report lists for an insert or a delete: an insert's non-null values, a delete's
    /// tombstone (nulls included), in attribute order; none for an update (its changed attributes
    /// are listed instead). Without the key's attributes unless `includingKey`.
    func listedValues(includingKey: Bool = true) -> [(String, Value)] {
        let listed = switch type {
        case .insert: values.filter { !$0.1.isNull }
        case .update: [(String, Value)]()
        case .delete: tombstone
        }
        guard !includingKey else { return listed }
        let keyNames = Set(key.map(\.0))
        return listed.filter { !keyNames.contains($0.0) }
    }
}
