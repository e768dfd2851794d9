import ImporterFeeds
import ImporterStore

extension ImportSession {
    /// Warns of the fields a feed's records hold, its mapping does not read, and no earlier run of
    /// that mapping met (`unmapped: warn`): the store keeps the names each mapping has met, so a
    /// field is said the run it first appears, once, not on every run after.
    func warnOfNewUnmapped(_ ledger: inout ImportLedger, in tx: StoreWriteTransaction) throws {
        var met: [String: Set<String>] = [:]
        for (mapping, source, fields) in ledger.unmapped {
            if met[mapping] == nil { met[mapping] = Set(try tx.records.knownUnmappedFields(of: mapping)) }
            let new = fields.filter { met[mapping]?.contains($0.name) == false }
            ledger.warn(new.map { "\(source): " + MappedFeed.describe($0, mapping: mapping) + " (new; unmapped: warn)" }, logger: logger)
            met[mapping]?.formUnion(new.map(\.name))
        }
        for (mapping, names) in met { try tx.records.recordUnmappedFields(names.sorted(), of: mapping) }
    }
}
