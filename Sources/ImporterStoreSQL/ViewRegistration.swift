import Foundation
import ImporterModel

/// How both backends keep a view's definition (`importer_view.definition`: JSON with sorted keys)
/// and hand its rows to the stages (group values → storage values).
public enum ViewRegistration {
    public static func definition(_ view: ViewDefinition) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(view), as: UTF8.self)
    }

    public static func view(fromDefinition text: String) throws -> ViewDefinition {
        try JSONDecoder().decode(ViewDefinition.self, from: Data(text.utf8))
    }

    /// Rows of `allRows` or `recomputation` keyed by their first `groups` values.
    public static func keyed(_ rows: [[Value]], groups count: Int) -> [[Value]: [Value]] {
        var result: [[Value]: [Value]] = [:]
        for row in rows { result[Array(row.prefix(count))] = Array(row.dropFirst(count)) }
        return result
    }
}
