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
        let failure: String? = withUnsafeMutableBytes(of: &value) { bytes in
            var done = 0
            while done < bytes.count {
                let read = pread(descriptor, bytes.baseAddress.map { $0 + done }, bytes.count - done, off_t(index * 8 + done))
                if read < 0, errno == EINTR { continue }
                if read < 0 { return "reading it back failed: " + String(cString: strerror(errno)) }
                if read == 0 { return "reading it back found it shorter than written" }
                done += read
            }
            return nil
        }
        if let failure { throw .temporaryFile(directory: directory, reason: failure) }
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
        var offset = count * 8
        let failure: String? = origins.withUnsafeBytes { bytes in
            var done = 0
            while done < bytes.count {
                let written = pwrite(descriptor, bytes.baseAddress.map { $0 + done }, bytes.count - done, off_t(offset))
                if written < 0, errno == EINTR { continue }
                if written < 0 { return String(cString: strerror(errno)) }
                if written == 0 { return "nothing could be written" }
                done += written
                offset += written
            }
            return nil
        }
        if let failure { throw .temporaryFile(directory: directory, reason: failure) }
    }
}
