import ImporterModel
import ImporterStore

/// `importer migrate`'s constraint steps, on both backends, inside the migration's transaction: an
/// attribute made required or optional (or added as required), a new unique key. The stored records are checked against
/// the new constraints first (nulls of an attribute made required take its `default:` or refuse the
/// migration, naming their records; a key value several records share refuses it, naming them);
/// then the backend changes its table's constraints (`replaceConstraints`). Records keep their ids,
/// so history, consumers and undo go on reading them.
extension SQLBackend {
    /// Applies `steps`' constraint changes to `entity` (the model's definition, every other step
    /// of the migration already applied); `renames`: the migration's attribute renames of it.
    func changeConstraints(of entity: EntityDescription, steps: [MigrationStep], renames: [String: String]) throws {
        let mine = steps.filter { step in
            switch step {
            case .changeOptionality(entity.name, _, _, _), .changeKey(entity.name, _, _): true
            // Added required: its column gets NOT NULL once filled, as a new store's has it.
            case .addAttribute(entity.name, let attribute, _): !attribute.isOptional
            default: false
            }
        }
        guard !mine.isEmpty else { return }
        for case .changeOptionality(_, let attribute, true, let fill) in mine { try makeRequired(attribute, of: entity, fill: fill) }
        for case .changeKey(_, let from, let to) in mine {
            try checkUnique(to, of: entity, labelledBy: from.compactMap { renames[$0] ?? $0 }.filter { entity.attribute(named: $0) != nil },
                            what: "change the key of \(entity.name): (\(from.joined(separator: ", "))) → (\(to.joined(separator: ", ")))")
        }
        try replaceConstraints(of: entity, changing: mine)
    }

    /// Refuses (65) stored nulls of `attribute`, naming the first ten records holding one, when
    /// the model gives no `default:` (one it gives filled them: `fillStoredValues`).
    private func makeRequired(_ attribute: String, of entity: EntityDescription, fill: MigrationStep.Fill?) throws {
        guard fill == nil else { return }
        try refuseNulls(attribute, of: entity, what: "make \(entity.name).\(attribute) required",
                        remedy: "Give the attribute a default: (the value they take), or keep it optional")
    }

    /// Refuses (65) a key `columns` that stored records share, naming the first shared values and
    /// the records holding each (by `label`, their old key).
    private func checkUnique(_ columns: [String], of entity: EntityDescription, labelledBy label: [String], what: String) throws {
        let table = tables(of: entity).table, key = columns.map(dialect.quoted).joined(separator: ", ")
        let shared = "SELECT \(key) FROM \(table) GROUP BY \(key) HAVING count(*) > 1"
        let count = try executor.integer("SELECT count(*) FROM (\(shared)) AS shared")
        guard count > 0 else { return }
        let names = (label.isEmpty ? ["id"] : label).map(dialect.quoted).joined(separator: ", ")
        let rows = try executor.rows("""
            SELECT \(key), \(names) FROM \(table) WHERE (\(key)) IN (\(shared) ORDER BY min("id") LIMIT 10) ORDER BY \(key), "id"
            """, [])
        var groups: [(key: String, records: [String])] = []
        for row in rows {
            let value = Self.label(Array(row.prefix(columns.count))), record = Self.label(Array(row.dropFirst(columns.count)))
            if groups.last?.key == value { groups[groups.count - 1].records.append(record) } else { groups.append((value, [record])) }
        }
        throw StoreError.migrationRefused(what: what, reason: "\(count) value(s) of the new key are held by more than one stored record: "
            + groups.map { "\($0.key) by \($0.records.joined(separator: " and "))" }.joined(separator: "; ") + (count > groups.count ? "; …" : "")
            + ". Choose a key the stored records do not share, or change the records first")
    }

    static func label(_ values: [Value]) -> String {
        "(" + values.map(\.description).joined(separator: ", ") + ")"
    }
}
