import ImporterModel

/// A condition that a record `e`'s key (its `columns`) is none of a list of keys.
package enum KeyListSQL {
    fileprivate static func q(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// `e`'s `columns` hold none of `keys` (each in the columns' order), as literals: one `NOT IN`
    /// list for a one-column key (the database searches it as a set), else the keys' conditions
    /// OR-ed as a balanced tree, so that thousands of them stay far below SQLite's expression
    /// depth (1,000).
    package static func none(of keys: [[Value]], columns: [String]) -> String {
        guard !keys.isEmpty else { return "1 = 1" }
        let names = columns.map { "e." + q($0) }
        if names.count == 1, let name = names.first {
            return "\(name) NOT IN (" + keys.compactMap { $0.first.map(Expression.literal) }.joined(separator: ", ") + ")"
        }
        let each = keys.map { key in
            "(" + zip(names, key).map { "\($0) = \(Expression.literal($1))" }.joined(separator: " AND ") + ")"
        }
        return "NOT " + balancedOr(each[...])
    }

    /// `e`'s `columns` hold one of `keys`: `IN` for a one-column key, else OR-ed as a balanced tree.
    package static func any(of keys: [[Value]], columns: [String]) -> String {
        guard !keys.isEmpty else { return "1 = 0" }
        let names = columns.map { "e." + q($0) }
        if names.count == 1, let name = names.first {
            return "\(name) IN (" + keys.compactMap { $0.first.map(Expression.literal) }.joined(separator: ", ") + ")"
        }
        return balancedOr(keys.map { key in "(" + zip(names, key).map { "\($0) = \(Expression.literal($1))" }.joined(separator: " AND ") + ")" }[...])
    }

    private static func balancedOr(_ terms: ArraySlice<String>) -> String {
        guard terms.count > 1 else { return terms.first ?? "(1 = 0)" }
        let middle = terms.startIndex + terms.count / 2
        return "(" + balancedOr(terms[..<middle]) + " OR " + balancedOr(terms[middle...]) + ")"
    }
}

extension SyncWindow {
    /// The condition that a record `e` lies in the window (`TRUE` for a window without bounds;
    /// a null scope value is in none).
    package var condition: String {
        let column = "e." + KeyListSQL.q(attribute)
        var terms = ["\(column) IS NOT NULL"]
        if let from { terms.append("\(column) >= \(Expression.literal(from))") }
        if let to { terms.append("\(column) <= \(Expression.literal(to))") }
        return "(" + terms.joined(separator: " AND ") + ")"
    }
}
