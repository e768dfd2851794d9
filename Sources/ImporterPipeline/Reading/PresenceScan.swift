import ImporterFeeds
import ImporterModel

/// A second reader over a feed file, looking only for which fields its records have.
///
/// `MappedFeed` holds its first records back until every optional field has shown up; when some
/// have not after its window, this reads the rest of the file (it is opened again, so the main
/// reader keeps its place) to learn whether they appear later. It maps nothing and holds nothing:
/// memory stays that of one record. A file that cannot be read to its end here (a parse error)
/// ends the scan early; the main reader then meets and reports the same error.
///
/// The cost, paid only by a feed of more than the window's records that leaves a mapped optional
/// field out of all of them so far, is a second parse of the file (of the requested fields only).
struct PresenceScan {
    let input: FeedInput
    /// The fields the main reader requests, in its order, so that slots mean the same fields.
    let fields: [String]
    /// An empty record shaped as the main reader's.
    let record: RawRecord

    /// The slots among `wanted` that some record after the first `skipping` records has (an
    /// explicit null counts); stops as soon as all of them are found. A file that cannot be opened
    /// or read again gives what was found so far: those fields are then decided as before.
    func seen(among wanted: Set<Int>, after skipping: Int) -> Set<Int> {
        var record = record
        var remaining = wanted
        var found: Set<Int> = []
        var index = 0
        do {
            let reader = try FeedReaders.make(for: input.mapping, source: try ByteSource(path: input.path))
            _ = try reader.open(requesting: fields)
            while !remaining.isEmpty, try reader.next(into: &record) {
                index += 1
                guard index > skipping else { continue }
                for slot in remaining where record.slots[slot].kind != .absent {
                    found.insert(slot)
                }
                remaining.subtract(found)
            }
        } catch {
            return found
        }
        return found
    }
}
