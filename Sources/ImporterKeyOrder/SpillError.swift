/// A feed out of key order could not be sorted through temporary files in `directory` (a full
/// disk, most often): nothing is written, the import rolls back.
package struct SpillError: Error, Equatable {
    package var directory: String
    package var reason: String

    package init(directory: String, reason: String) {
        self.directory = directory
        self.reason = reason
    }
}
