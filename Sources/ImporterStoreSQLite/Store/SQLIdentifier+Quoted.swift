import CSQLite
import Foundation
import ImporterModel

extension SQLIdentifier {
    /// The name as a quoted SQL identifier. Callers pass validated names; quotes are doubled anyway.
    package static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
