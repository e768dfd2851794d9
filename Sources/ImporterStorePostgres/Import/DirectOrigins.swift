import Foundation
import Glibc
import ImporterModel
import ImporterStore
import ImporterSupport

/// Where each record COPied straight into the entity table came from (`FeedRecord.packed`), in id
/// order from the first direct id: 8 bytes a record, written a batch at a time to an unnamed
/// temporary file, and read back only for the ids a repeated key names, so that a first load's
/// memory does not grow with it. Each feed's stretch of ids is kept in memory (one entry per
/// change of feed).
///
/// Invariant: the file has no name once created (`UnnamedFile`), so nothing is left behind however
/// the process ends; a failed write (a full disk) is `StoreError.temporaryFile`, and the import
/// rolls back.
final class DirectOrigins {
    /// Where the file is made, at the first `append`.
    var directory: String
    private var descriptor: Int32 = -1
    private(set) var count = 0
    /// Each feed's stretch of direct records: its feed, and the index past its last record.
    private(set) var feedRuns: [(feed: Int64, end: Int)] = []

    init(directory: String = FileManager.default.temporaryDirectory.path) {
        self.directory = directory
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    static let namePrefix = ".importer-origins"

    func append(_ origins: [Int64]) throws(StoreError) {
        for (offset, origin) in origins.enumerated() {
            let end = count + offset + 1
            if let last = feedRuns.last, last.feed == origin >> 40 {
                feedRuns[feedRuns.count - 1].end = end
            } else {
                feedRuns.append((origin >> 40, end))
            }
        }
        try write(origins)
        count += origins.count
    }

    /// The origin of the `index`th direct record.
    func origin(at index: Int) throws(StoreError) -> Int64 {
        var value: Int64 = 0
        let read: Int
        do {
            read = try withUnsafeMutableBytes(of: &value) { bytes throws(UnnamedFile.Failure) in
                try UnnamedFile.read(descriptor, into: bytes, at: Int64(index * 8))
            }
        } catch {
            throw .temporaryFile(directory: directory, reason: "reading it back failed: " + error.reason)
        }
        guard read == 8 else { throw .temporaryFile(directory: directory, reason: "reading it back found it shorter than written") }
        return value
    }

    private func write(_ origins: [Int64]) throws(StoreError) {
        if descriptor < 0 {
            do {
                descriptor = try UnnamedFile.create(in: directory, prefix: Self.namePrefix)
            } catch {
                throw .temporaryFile(directory: directory, reason: error.reason)
            }
        }
        let failure = origins.withUnsafeBytes { bytes -> UnnamedFile.Failure? in
            do throws(UnnamedFile.Failure) { try UnnamedFile.write(descriptor, bytes, at: Int64(count * 8)) } catch { return error }
            return nil
        }
        if let failure { throw .temporaryFile(directory: directory, reason: failure.reason) }
    }
}
