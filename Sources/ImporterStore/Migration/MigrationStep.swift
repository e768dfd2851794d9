import ImporterModel

/// One step between a store's registered entities and a model's (`ModelDiff`): what `importer
/// migrate` does, or why it cannot yet.
public enum MigrationStep: Sendable, Equatable {
    /// A new entity: its tables are created.
    case addEntity(String)
    /// `renamed-from:` on an entity: its history, views, consumer filters, relationships and
    /// rejects take the new name (its table is `changeTable`'s).
    case renameEntity(from: String, to: String)
    /// A new attribute; `fill` is the value stored records take (`default:`), none for an
    /// optional attribute they leave null.
    case addAttribute(entity: String, attribute: AttributeDescription, fill: Fill?)
    /// `renamed-from:`: the column, its history, views and consumer filters take the new name.
    case renameAttribute(entity: String, from: String, to: String)
    /// `removed-entities:`: the entity's table goes; its change table and definition stay, so
    /// history still reads its past changes.
    case removeEntity(String)
    /// The column goes from the entity's table; its past values stay in history (a retired
    /// attribute of the change table).
    case removeAttribute(entity: String, attribute: String)
    /// Stored values, and past values in history, converted to the new type (`ValueConversion`);
    /// `invalid` says what a value that does not convert becomes.
    case retypeAttribute(entity: String, attribute: String, from: AttributeType, to: AttributeType, invalid: InvalidValues)
    /// An attribute made required (stored nulls take `fill`, the attribute's `default:`, or refuse
    /// the migration naming their records) or optional.
    case changeOptionality(entity: String, attribute: String, required: Bool, fill: Fill?)
    /// A new unique key: refused when stored records share a value of it; records keep their ids
    /// and history.
    case changeKey(entity: String, from: [String], to: [String])
    /// A child entity takes the attributes its parent's new key adds from its parent record,
    /// found by the parent's old key (a child's key begins with its parent's: `Relationship`).
    case takeParentKey(entity: String, link: ParentKeyLink)
    /// The entity's table and change table renamed, their indexes and guard with them.
    case changeTable(entity: String, from: String, to: String)
    /// Tombstone, drift or derived attributes changed: the definition is registered again.
    case changeDefinition(String)
    /// A view whose definition changed (or a new one), or that reads values the migration fills
    /// without change rows: its table is rebuilt from the stored records.
    case rebuildView(String)
    /// A secondary index (`indexes:`) built, or dropped.
    case addIndex(entity: String, columns: [String])
    case dropIndex(entity: String, columns: [String])

    /// What stored records take (`default:`): a constant, or an expression over the record's
    /// other attributes, computed for each.
    public enum Fill: Sendable, Equatable, CustomStringConvertible {
        case value(Value)
        case expression(Expression)

        public var description: String {
            switch self {
            case .value(let value): value.description
            case .expression(let expression): "the value of \(expression.text)"
            }
        }
    }

    /// What a retype does with a stored value that does not convert: refuse the migration (naming
    /// the records), store null, or store a value (`retype-invalid:` in the model).
    public enum InvalidValues: Sendable, Equatable {
        case refuse
        case null
        case value(Value)
    }

    public var entity: String {
        switch self {
        case .addEntity(let name), .changeDefinition(let name), .rebuildView(let name), .renameEntity(_, let name), .takeParentKey(let name, _), .removeEntity(let name): name
        case .addIndex(let entity, _), .dropIndex(let entity, _): entity
        case .addAttribute(let entity, _, _), .renameAttribute(let entity, _, _), .removeAttribute(let entity, _),
             .retypeAttribute(let entity, _, _, _, _), .changeOptionality(let entity, _, _, _), .changeKey(let entity, _, _), .changeTable(let entity, _, _):
            entity
        }
    }

    /// `rename Fireball.energy → energy_kt`.
    public var description: String {
        switch self {
        case .addEntity(let name): "add entity \(name)"
        case .renameEntity(let from, let to): "rename entity \(from) → \(to)"
        case .removeEntity(let name): "remove entity \(name)"
        case .addAttribute(let entity, let attribute, let fill):
            "add \(attribute.isOptional ? "optional" : "required") attribute \(entity).\(attribute.name) (\(attribute.type.rawValue))" + (fill.map { ", stored records take \($0)" } ?? "")
        case .renameAttribute(let entity, let from, let to): "rename \(entity).\(from) → \(to)"
        case .removeAttribute(let entity, let attribute): "remove attribute \(entity).\(attribute)"
        case .retypeAttribute(let entity, let attribute, let from, let to, let invalid):
            "retype \(entity).\(attribute): \(from.rawValue) → \(to.rawValue)" + {
                switch invalid {
                case .refuse: ""
                case .null: ", a value that does not convert becomes null"
                case .value(let value): ", a value that does not convert becomes \(value)"
                }
            }()
        case .changeOptionality(let entity, let attribute, let required, let fill):
            "make \(entity).\(attribute) \(required ? "required" : "optional")" + (fill.map { ", stored nulls take \($0)" } ?? "")
        case .changeKey(let entity, let from, let to): "change the key of \(entity): (\(from.joined(separator: ", "))) → (\(to.joined(separator: ", ")))"
        case .changeTable(let entity, let from, let to): "rename the table of \(entity): \(from) → \(to)"
        case .takeParentKey(let entity, let link):
            "\(entity) takes \(link.attributes.joined(separator: ", ")) from its \(link.parent) (found by \(link.parentColumns.joined(separator: ", ")))"
                + (link.fills.contains { $0 != nil } ? ", one without a stored \(link.parent) takes its default" : "")
        case .changeDefinition(let name): "register the new definition of \(name) (tombstone, drift or derived attributes)"
        case .rebuildView(let name): "rebuild view \(name)"
        case .addIndex(let entity, let columns): "add index on \(entity) (\(columns.joined(separator: ", ")))"
        case .dropIndex(let entity, let columns): "drop index on \(entity) (\(columns.joined(separator: ", ")))"
        }
    }

    /// Where the step runs in a migration (`applyMigration`): renames first, then dropped indexes,
    /// removed, added and retyped attributes, added indexes, children taking their parents' new
    /// key (parents first: `ModelDiff` lists them so); the rest (constraints, views, definitions) after.
    public var phase: Int {
        switch self {
        case .renameEntity: 0
        case .changeTable: 1
        case .renameAttribute: 2
        case .dropIndex: 3
        case .removeAttribute, .removeEntity: 4
        case .addAttribute: 5
        case .retypeAttribute: 6
        case .addIndex: 7
        case .takeParentKey: Self.takeParentKeyPhase
        case .addEntity, .changeDefinition, .changeOptionality, .changeKey, .rebuildView: 9
        }
    }

    /// The phase of children taking their parent's new key: the values the migration fills are
    /// filled before it.
    public static let takeParentKeyPhase = 8

    /// Why `importer migrate` cannot apply the step (nil when it can).
    public var refusal: String? {
        switch self {
        case .addEntity, .renameAttribute, .changeDefinition, .removeAttribute, .rebuildView, .addIndex, .dropIndex, .changeOptionality, .changeKey,
             .renameEntity, .changeTable, .takeParentKey, .removeEntity: nil
        case .addAttribute(_, let attribute, let fill):
            attribute.isOptional || fill != nil ? nil : "a required attribute needs a default: the value stored records take"
        case .retypeAttribute(_, _, let from, let to, _):
            ValueConversion.isSupported(from: from, to: to) ? nil : "\(from.rawValue) values do not become \(to.rawValue) values"
        }
    }

    /// Whether a run may apply it by itself (`run --migrate`): nothing to choose, nothing lost,
    /// no stored value rewritten (making an attribute optional copies SQLite's table, values as they are).
    public var isAutomatic: Bool {
        switch self {
        case .addEntity, .renameAttribute, .changeDefinition, .rebuildView, .addIndex, .dropIndex, .renameEntity, .changeTable: true
        case .addAttribute(_, let attribute, _): attribute.isOptional
        case .changeOptionality(_, _, let required, _): !required
        default: false
        }
    }
}

/// How a child entity takes the attributes its parent's new key adds (`MigrationStep.takeParentKey`).
public struct ParentKeyLink: Sendable, Equatable {
    public var parent: String
    /// The attributes of the parent's new key the child takes, in that key's order.
    public var attributes: [String]
    /// The parent's old key, named as the parent's columns are when the step runs (renames
    /// applied), and the child's columns holding it, in the same order.
    public var parentColumns: [String]
    public var childColumns: [String]
    /// Per attribute, what a child without a stored parent takes (its `default:`); none refuses
    /// the migration, naming those children.
    public var fills: [MigrationStep.Fill?]

    public init(parent: String, attributes: [String], parentColumns: [String], childColumns: [String], fills: [MigrationStep.Fill?]) {
        self.parent = parent
        self.attributes = attributes
        self.parentColumns = parentColumns
        self.childColumns = childColumns
        self.fills = fills
    }
}
