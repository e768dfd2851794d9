import CSQLite
import Foundation
import ImporterModel

extension AttributeType {
    /// The SQLite column type (and so the column affinity).
    package var sqlType: String {
        switch self {
        case .text, .date, .datetime: "TEXT"
        case .integer, .boolean: "INTEGER"
        case .real: "REAL"
        }
    }
}
