import ImporterModel
import ImporterStore

/// The values a migration fills (`default:`, a constant or an expression over each record's other
/// attributes), in the stored records and in history: a record's change rows hold whole images
/// (an insert's, a delete's, an update's after-image), so a value the migration gives stored
/// records is also given to the images that lack it where history needs it. Otherwise `undo` of
/// a delete from before the migration would put back a record without a required value, and
/// `history --key` under a key the migration widened would not find the record's past.
extension SQLBackend {
    /// Gives `entity`'s stored records `fill` as `attribute`'s value (those holding null only,
    /// with `onlyNulls`), and their change rows (`fillHistory`); a required attribute an
    /// expression gives null refuses the migration (65), naming the records.
    func fill(_ attribute: String, of entity: EntityDescription, with fill: MigrationStep.Fill, onlyNulls: Bool, what: String) throws {
        let table = tables(of: entity).table, column = dialect.quoted(attribute), (value, parameters) = sql(fill)
        try executor.execute("UPDATE \(table) SET \(column) = \(value)" + (onlyNulls ? " WHERE \(column) IS NULL" : ""), parameters)
        if entity.attribute(named: attribute)?.isOptional == false, case .expression(let expression) = fill {
            try refuseNulls(attribute, of: entity, what: what, remedy: "Its default \(expression.text) gives null for them: "
                + "make it give a value (coalesce(…, a constant)), or keep the attribute optional")
        }
        try fillHistory(attribute, of: entity, with: fill)
    }

    /// Adds `attribute` holding `value` in every stored record (and, for a key attribute, in every
    /// change row; otherwise in deletes' images) without rewriting them, where the dialect can
    /// (`addsFilledColumnsInPlace`): the column is added with the value as its DEFAULT, which is
    /// then dropped, so the rows written from now on hold what runs write.
    func addColumn(_ attribute: AttributeDescription, of entity: EntityDescription, holding value: Value) throws {
        let tables = tables(of: entity), column = dialect.quoted(attribute.name), type = dialect.columnType(attribute.type)
        let literal: String = ImporterModel.Expression.literal(value)
        func filled(_ table: String) -> [String] {
            ["ALTER TABLE \(table) ADD COLUMN \(column) \(type) DEFAULT \(literal)", "ALTER TABLE \(table) ALTER COLUMN \(column) DROP DEFAULT"]
        }
        let isKey = entity.uniqueKey.contains(attribute.name)
        let statements = filled(tables.table) + (isKey ? filled(tables.changeTable) : ["ALTER TABLE \(tables.changeTable) ADD COLUMN \(column) \(type)"])
            + ["ALTER TABLE \(tables.changeTable) ADD COLUMN \(tables.old(attribute.name)) \(type)"]
        for statement in statements { try executor.execute(statement, []) }
        if !isKey { try fillHistory(attribute.name, of: entity, with: .value(value)) }
    }

    /// Refuses (65) while stored records of `entity` hold null in `attribute`, naming the first ten.
    func refuseNulls(_ attribute: String, of entity: EntityDescription, what: String, remedy: String) throws {
        let table = tables(of: entity).table, column = dialect.quoted(attribute)
        let count = try executor.integer("SELECT count(*) FROM \(table) WHERE \(column) IS NULL")
        guard count > 0 else { return }
        let key = entity.uniqueKey.map(dialect.quoted).joined(separator: ", ")
        let first = try executor.rows("SELECT \(key) FROM \(table) WHERE \(column) IS NULL ORDER BY \"id\" LIMIT 10", [])
        throw StoreError.migrationRefused(what: what, reason: "\(count) stored record(s) hold null: "
            + first.map(Self.label).joined(separator: ", ") + (count > first.count ? ", …" : "") + ". " + remedy)
    }

    /// Gives `attribute`'s nulls in `entity`'s change rows `fill`: every row's when the attribute
    /// is part of the entity's key (`entity` as the model defines it: the records' identity in
    /// history), only deletes' images otherwise (an insert's image stays what the feed said). An
    /// expression reads the row's own image.
    func fillHistory(_ attribute: String, of entity: EntityDescription, with fill: MigrationStep.Fill) throws {
        let tables = tables(of: entity), column = dialect.quoted(attribute), (value, parameters) = sql(fill)
        let rows = entity.uniqueKey.contains(attribute) ? "" : " AND \(tables.type) = 'delete'"
        try executor.execute("UPDATE \(tables.changeTable) SET \(column) = \(value) WHERE \(column) IS NULL\(rows)", parameters)
    }

    /// The values a migration fills once the columns are as the model says (renamed, added,
    /// retyped), entity by entity, parents before their children: an entity's attributes made
    /// required take their constant `default:`, then it takes what its parent's new key adds
    /// (`takeParentKey`), then its `default:` expressions are computed (they may read either). An
    /// attribute a child takes from its parent takes its own default only where it has no parent.
    func fillStoredValues(_ steps: [MigrationStep], entities: [EntityDescription]) throws {
        func entity(_ name: String) -> EntityDescription? { entities.first { $0.name == name } }
        let links = steps.compactMap { step -> (child: String, link: ParentKeyLink)? in
            if case .takeParentKey(let child, let link) = step { (child, link) } else { nil }
        }
        var children: [String] = []
        for link in links where !children.contains(link.child) { children.append(link.child) }
        for name in entities.map(\.name).filter({ !children.contains($0) }) + children {
            guard let target = entity(name) else { continue }
            let taken = Set(links.filter { $0.child == name }.flatMap(\.link.attributes))
            for case .changeOptionality(name, let attribute, true, .value(let value)?) in steps where !taken.contains(attribute) {
                try fill(attribute, of: target, with: .value(value), onlyNulls: true, what: "make \(name).\(attribute) required")
            }
            for (_, link) in links.filter({ $0.child == name }) {
                guard let parent = entity(link.parent) else { continue }
                try takeParentKey(link, of: target, parent: parent)
            }
            for step in steps {
                switch step {
                case .addAttribute(name, let attribute, .expression(let expression)?) where !taken.contains(attribute.name):
                    try fill(attribute.name, of: target, with: .expression(expression), onlyNulls: false, what: step.description)
                case .changeOptionality(name, let attribute, true, .expression(let expression)?) where !taken.contains(attribute):
                    try fill(attribute, of: target, with: .expression(expression), onlyNulls: true, what: step.description)
                default: continue
                }
            }
        }
    }

    /// `fill` as SQL over a row's columns, and its parameters.
    func sql(_ fill: MigrationStep.Fill) -> (String, [Value]) {
        switch fill {
        case .value(let value): (p(1), [value])
        case .expression(let expression): (expression.sql(dialect), [])
        }
    }
}
