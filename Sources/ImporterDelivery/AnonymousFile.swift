import Foundation
import ImporterSupport

/// Unlinked temporary files in the temporary directory (`UnnamedFile`), failing as `DeliveryError`.
enum AnonymousFile {
    static func create(prefix: String) throws(DeliveryError) -> Int32 {
        let directory = FileManager.default.temporaryDirectory.path
        do {
            return try UnnamedFile.create(in: directory, prefix: prefix)
        } catch {
            throw .payload("cannot create a temporary file in \(directory): \(error.reason)")
        }
    }
}
