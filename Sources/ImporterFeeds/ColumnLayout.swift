/// How the named columns of a columnar feed (a CSV header, the NASA API's `fields`) map to the
/// fields a mapper requests.
struct ColumnLayout {
    /// For each column, the slot it fills, or -1 when it is not requested.
    let slots: [Int]
    /// For each requested field, whether a column supplies it.
    let supplied: [Bool]

    init(columns: [String], requested: [String]) {
        slots = columns.map { requested.firstIndex(of: $0) ?? -1 }
        var supplied = Array(repeating: false, count: requested.count)
        for slot in slots where slot >= 0 { supplied[slot] = true }
        self.supplied = supplied
    }

    /// The 0-based indices of the first column name that appears twice, and of its repetition.
    static func firstDuplicate(in columns: [String]) -> (first: Int, repeated: Int)? {
        var seen: [String: Int] = [:]
        for (index, name) in columns.enumerated() {
            if let first = seen[name] { return (first, index) }
            seen[name] = index
        }
        return nil
    }
}
