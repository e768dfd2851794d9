import Foundation

/// Validation of names that come from a model and reach a store (quoting is the backend's).
///
/// A model can never inject SQL: names must match `[A-Za-z_][A-Za-z0-9_]*` (at most 64 characters)
/// and are always emitted double-quoted.
public enum SQLIdentifier {
    public static func problem(with name: String) -> String? {
        guard !name.isEmpty else { return "empty name" }
        guard name.utf8.count <= 64 else { return "'\(name)' is longer than 64 characters" }
        var first = true
        for byte in name.utf8 {
            let isLetter = (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte == 95
            let isDigit = byte >= 48 && byte <= 57
            if !(isLetter || (!first && isDigit)) {
                return "'\(name)' is not a valid name (letters, digits and _; not starting with a digit)"
            }
            first = false
        }
        return nil
    }

    /// Names in the store's own namespaces.
    public static func isReserved(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.hasPrefix("importer_") || lower.hasPrefix("sqlite_")
    }
}
