import Foundation
import ImporterModel
import ImporterStore

/// `importer migrate` on both backends, inside the caller's write transaction (so a failed or
/// killed migration leaves the store as it was): each step's DDL and data, the entities registered
/// with their new definitions, and one history transaction (context `migration`) that records it.
extension SQLBackend {
    /// `RecordWriting.migrate`, each backend's with what it needs around it (SQLite: its
    /// transaction state open, as its guards require of every write to an entity table).
    ///
    /// Steps run in an order that keeps every statement valid on both backends (`MigrationStep.phase`):
    /// entity and table renames, attribute renames, dropped indexes, removed attributes, added and
    /// retyped ones, added indexes, children taking their parents' new key, then the constraints
    /// (a new key, optionality); an attribute of
    /// the old key goes after the new key replaced it (SQLite drops no column of a UNIQUE constraint).
    package func applyMigration(_ steps: [MigrationStep], to entities: [EntityDescription], metadata: TransactionMetadata) throws -> Int64 {
        if let refused = steps.first(where: { $0.refusal != nil }) {
            throw StoreError.incompatibleModel(entity: refused.entity, reason: "\(refused.description): \(refused.refusal ?? "")")
        }
        var registered = try registeredEntities()
        try checkRelatedKeys(steps, entities: entities, registered: registered)
        var afterConstraints: [(entity: EntityDescription, attribute: AttributeDescription)] = []
        let ordered = steps.enumerated().sorted(by: { ($0.element.phase, $0.offset) < ($1.element.phase, $1.offset) }).map(\.element)
        for step in ordered where step.phase < MigrationStep.takeParentKeyPhase {
            try apply(step, of: steps, to: entities, registered: &registered, removingLater: &afterConstraints)
        }
        // Values filled once the columns are as the model says, parents before children.
        try fillStoredValues(steps, entities: entities)
        for step in ordered where step.phase >= MigrationStep.takeParentKeyPhase {
            try apply(step, of: steps, to: entities, registered: &registered, removingLater: &afterConstraints)
        }
        for entity in entities where registered.contains(where: { $0.name == entity.name }) {
            var renames: [String: String] = [:]
            for case .renameAttribute(entity.name, let from, let to) in steps { renames[from] = to }
            try changeConstraints(of: entity, steps: steps, renames: renames)
        }
        for (entity, attribute) in afterConstraints {
            try removeAttribute(attribute, of: entity, dropping: try columnExists(attribute.name, in: entity.tableName))
        }
        // The definitions now match the tables: written as they are, then new entities created.
        for entity in entities where registered.contains(where: { $0.name == entity.name }) {
            try executor.execute(#"UPDATE importer_entity SET "definition" = \#(p(1)), "registered_at" = \#(p(2)) WHERE "name" = \#(p(3))"#,
                                 [.text(try Self.sortedJSON(entity)), .text(Timestamp.now()), .text(entity.name)])
        }
        _ = try registerEntities(entities)
        let number = try lastTransactionNumber() + 1
        _ = try recordTransaction(number, metadata: metadata, entities: [], evenIfEmpty: true)
        return number
    }

    /// Applies one step to the tables (`registered`: the store's definitions, renames applied as
    /// they are made); an attribute of the old key to remove is left for after the constraints.
    private func apply(_ step: MigrationStep, of steps: [MigrationStep], to entities: [EntityDescription], registered: inout [EntityDescription],
                       removingLater: inout [(entity: EntityDescription, attribute: AttributeDescription)]) throws {
        func stored(_ name: String) -> EntityDescription? { registered.first { $0.name == name } }
        func target(_ name: String) -> EntityDescription? { entities.first { $0.name == name } }
        switch step {
        case .renameEntity(let from, let to):
            if let renamed = target(to) { try checkNotRetired(renamed) }
            try renameEntity(from: from, to: to)
            for index in registered.indices where registered[index].name == from { registered[index].name = to }
        case .changeTable(let name, _, let table):
            guard let index = registered.firstIndex(where: { $0.name == name }) else { return }
            if let renamed = target(name) { try checkNotRetired(renamed) }
            try renameTable(of: registered[index], to: table)
            registered[index].tableName = table
        case .renameAttribute(let name, let from, let to):
            guard let entity = stored(name) else { return }
            try renameAttribute(of: entity, from: from, to: to)
        case .addAttribute(let name, let attribute, let fill):
            guard let entity = target(name) else { return }
            if case .value(let value)? = fill, dialect.addsFilledColumnsInPlace { return try addColumn(attribute, of: entity, holding: value) }
            for statement in addColumnStatements(for: attribute, of: entity) { try executor.execute(statement, []) }
            // An expression reads the other attributes as the migration leaves them: filled later (`fillStoredValues`).
            if case .value? = fill, let fill { try self.fill(attribute.name, of: entity, with: fill, onlyNulls: false, what: step.description) }
        case .removeAttribute(let name, let attribute):
            guard let entity = stored(name), let removed = entity.attribute(named: attribute) else { return }
            if entity.uniqueKey.contains(attribute) { return removingLater.append((entity, removed)) }
            try removeAttribute(removed, of: entity)
        case .retypeAttribute(let name, let attribute, _, let type, let invalid):
            guard let entity = stored(name).map({ Self.renamed($0, by: steps) }) else { return }
            let required = target(name)?.attribute(named: attribute)?.isOptional == false
            try withoutIndexes(on: attribute, of: entity, keeping: target(name)?.indexes ?? []) {
                try retypeAttribute(attribute, of: entity, to: type, required: required, invalid: invalid)
            }
        case .addIndex(let name, let columns):
            guard let entity = target(name) else { return }
            try executor.execute(tables(of: entity).createIndex(columns), [])
        case .dropIndex(let name, let columns):
            guard let entity = target(name) else { return }
            try executor.execute(tables(of: entity).dropIndex(columns), [])
        case .takeParentKey:
            return // done with the fills, in their order (`fillStoredValues`)
        case .removeEntity(let name):
            try removeEntity(name, removing: Set(steps.compactMap { if case .removeEntity(let removed) = $0 { removed } else { nil } }))
            registered.removeAll { $0.name == name }
        case .addEntity, .changeDefinition, .changeOptionality, .changeKey, .rebuildView:
            return
        }
    }

    /// `entity` (as registered) with the attribute renames of `steps` applied to its attributes
    /// and indexes (a retype follows the renames of its migration).
    private static func renamed(_ entity: EntityDescription, by steps: [MigrationStep]) -> EntityDescription {
        var renamed = entity
        for case .renameAttribute(entity.name, let from, let to) in steps {
            for index in renamed.attributes.indices where renamed.attributes[index].name == from { renamed.attributes[index].name = to }
            renamed.indexes = renamed.indexes.map { $0.map { $0 == from ? to : $0 } }
        }
        return renamed
    }

    /// Runs `body` with the secondary indexes over `attribute` dropped (SQLite drops no indexed
    /// column, and a retype replaces it), then builds again those the model keeps (`keeping`).
    private func withoutIndexes(on attribute: String, of entity: EntityDescription, keeping: [[String]], _ body: () throws -> Void) throws {
        let covering = entity.indexes.filter { $0.contains(attribute) }
        for index in covering {
            try executor.execute(tables(of: entity).dropIndex(index).replacingOccurrences(of: "DROP INDEX ", with: "DROP INDEX IF EXISTS "), [])
        }
        try body()
        for index in covering where keeping.contains(index) { try executor.execute(tables(of: entity).createIndex(index), []) }
    }

    /// Drops `attribute`'s column from `entity`'s table (unless `dropping` is false: SQLite's copy
    /// of the table for a new key left it out); its change table keeps it, retired, so history
    /// still shows its past values. Refused while a registered view reads it.
    private func removeAttribute(_ attribute: AttributeDescription, of entity: EntityDescription, dropping: Bool = true) throws {
        for view in try registeredViews() where view.entity == entity.name
            && (view.groupBy.contains(attribute.name) || view.aggregates.contains { $0.attribute == attribute.name }) {
            throw StoreError.incompatibleModel(entity: entity.name, reason: "remove attribute \(entity.name).\(attribute.name): view \(view.name) reads it")
        }
        if dropping { try executor.execute("ALTER TABLE \(tables(of: entity).table) DROP COLUMN \(dialect.quoted(attribute.name))", []) }
        let retired = try retiredAttributes(of: entity.name) + [attribute]
        try setMetadata([(key: "retired:" + entity.name, value: .text(String(decoding: try JSONEncoder().encode(retired), as: UTF8.self)))])
    }

    /// The attributes a migration removed from `entity` whose past values its change table keeps.
    package func retiredAttributes(of entity: String) throws -> [AttributeDescription] {
        guard let json = try metadata("retired:" + entity)?.stringValue else { return [] }
        return try JSONDecoder().decode([AttributeDescription].self, from: Data(json.utf8))
    }

    /// `entity` as its change rows are read: its attributes, then the retired ones.
    package func historyEntity(_ entity: EntityDescription) throws -> EntityDescription {
        let retired = try retiredAttributes(of: entity.name).filter { entity.attribute(named: $0.name) == nil }
        guard !retired.isEmpty else { return entity }
        var reading = entity
        reading.attributes += retired
        return reading
    }

    /// Renames `from` to `to` in `entity`'s table and change table (its values and old values),
    /// in the changed-attribute lists of its past updates, in the views over it (their group
    /// columns too) and in the consumers' attribute filters.
    private func renameAttribute(of entity: EntityDescription, from: String, to: String) throws {
        let tables = tables(of: entity)
        let q = dialect.quoted
        for statement in [
            "ALTER TABLE \(tables.table) RENAME COLUMN \(q(from)) TO \(q(to))",
            "ALTER TABLE \(tables.changeTable) RENAME COLUMN \(q(from)) TO \(q(to))",
            "ALTER TABLE \(tables.changeTable) RENAME COLUMN \(tables.old(from)) TO \(tables.old(to))",
        ] { try executor.execute(statement, []) }
        // An index is named after its columns: one over the renamed column is made again under its new name.
        for index in entity.indexes where index.contains(from) {
            try executor.execute(tables.dropIndex(index), [])
            try executor.execute(tables.createIndex(index.map { $0 == from ? to : $0 }), [])
        }
        let listed = "replace(',' || \(tables.changed) || ',', \(p(1)), \(p(2)))"
        try executor.execute("""
            UPDATE \(tables.changeTable) SET \(tables.changed) = substr(\(listed), 2, length(\(listed)) - 2)
            WHERE \(tables.type) = 'update' AND ',' || \(tables.changed) || ',' LIKE \(p(3))
            """, [.text("," + from + ","), .text("," + to + ","), .text("%," + from + ",%")])
        for var view in try registeredViews() where view.entity == entity.name {
            guard view.groupBy.contains(from) || view.aggregates.contains(where: { $0.attribute == from }) else { continue }
            if view.groupBy.contains(from) { try executor.execute("ALTER TABLE \(q(view.name)) RENAME COLUMN \(q(from)) TO \(q(to))", []) }
            view.groupBy = view.groupBy.map { $0 == from ? to : $0 }
            for index in view.aggregates.indices where view.aggregates[index].attribute == from { view.aggregates[index].attribute = to }
            try executor.execute(#"UPDATE importer_view SET "definition" = \#(p(1)) WHERE "name" = \#(p(2))"#, [.text(try Self.sortedJSON(view)), .text(view.name)])
        }
        for var consumer in try consumers() where consumer.attributes.contains(from) {
            consumer.attributes = consumer.attributes.map { $0 == from ? to : $0 }
            guard let column = Consumer.storedColumnNames.firstIndex(of: "attributes") else { continue }
            try executor.execute(#"UPDATE importer_consumer SET "attributes" = \#(p(1)) WHERE "name" = \#(p(2))"#, [consumer.storedRow[column], .text(consumer.name)])
        }
    }
}
