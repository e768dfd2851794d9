/// The names of importer's own columns in an entity's change table (`importer_change_<table>`),
/// beside one column per attribute.
///
/// Attribute names may not start with `importer_` (`EntityDescription.validate`), so the current
/// layout's names can never collide with an attribute's column, whatever the feed calls its
/// fields (`type`, `changed`, `record_id`, `old.x`…). Stores written before it (SQLite schema 2,
/// PostgreSQL schema 1) have the `legacy` names; they are renamed when such a store is opened for
/// writing, and read as they are when it is opened read-only.
public struct ChangeColumns: Sendable, Equatable {
    /// The order of changes (identity / AUTOINCREMENT).
    public let changeID: String
    public let transactionNumber: String
    public let recordID: String
    /// `insert`, `update` or `delete`.
    public let type: String
    /// An update's changed attribute names, comma-separated, in entity order.
    public let changed: String
    /// The prefix of the column holding an update's old value of an attribute.
    public let oldPrefix: String

    /// The column of an update's old value of `attribute`.
    public func old(_ attribute: String) -> String { oldPrefix + attribute }

    /// The bookkeeping columns, in table order.
    public var bookkeeping: [String] { [changeID, transactionNumber, recordID, type, changed] }

    /// Every store created since attribute names became free.
    public static let current = ChangeColumns(
        changeID: "importer_change_id", transactionNumber: "importer_transaction_number", recordID: "importer_record_id",
        type: "importer_type", changed: "importer_changed", oldPrefix: "importer_old.")

    /// Stores written before: SQLite schema ≤ 2, PostgreSQL schema 1.
    public static let legacy = ChangeColumns(
        changeID: "change_id", transactionNumber: "transaction_number", recordID: "record_id",
        type: "type", changed: "changed", oldPrefix: "old.")

    /// The renames (from, to) that bring a change table of `attributes` from `legacy` to `current`.
    public static func legacyRenames(attributes: [String]) -> [(from: String, to: String)] {
        var renames = zip(legacy.bookkeeping, current.bookkeeping).map { (from: $0, to: $1) }
        renames += attributes.map { (from: legacy.old($0), to: current.old($0)) }
        return renames
    }
}
