import ImporterHistory
import ImporterModel
import ImporterStore
import ImporterSupport

/// An entity with the relationships `export` nests under it, down to its grandchildren and beyond.
public struct ExportTree: Sendable {
    public var entity: EntityDescription
    /// The relationship that makes this entity a child (nil at the root).
    public var relationship: Relationship?
    public var children: [ExportTree]

    /// `entity` and, recursively, the children `relationships` give it among `entities`.
    public init(_ entity: EntityDescription, relationships: [Relationship], entities: [EntityDescription]) {
        self.init(entity, relationship: nil, relationships: relationships, entities: entities, depth: 0)
    }

    private init(_ entity: EntityDescription, relationship: Relationship?, relationships: [Relationship], entities: [EntityDescription], depth: Int) {
        self.entity = entity
        self.relationship = relationship
        // A store's relationships form a tree (model check refuses cycles); the depth bound only
        // keeps a hand-edited store from recursing forever.
        children = depth > 16 ? [] : relationships.filter { $0.parent == entity.name }.compactMap { relationship in
            entities.first { $0.name == relationship.child }.map {
                ExportTree($0, relationship: relationship, relationships: relationships, entities: entities, depth: depth + 1)
            }
        }
    }

    /// Every entity below the root, parents before their children.
    public var descendants: [EntityDescription] { children.flatMap { [$0.entity] + $0.descendants } }

    /// The attributes written for each record: all of them, less the parent's key at a child (its
    /// place under the parent says it).
    var writtenAttributes: [(index: Int, name: String)] {
        let inherited = Set(entity.uniqueKey.prefix(entity.uniqueKey.count - (relationship?.ownKey.count ?? entity.uniqueKey.count)))
        return entity.attributes.enumerated().filter { !inherited.contains($0.element.name) }.map { ($0.offset, $0.element.name) }
    }
}

/// Streams an entity's records as of a point of history, each with its children nested: every
/// child entity is first written in key order to a `ChildSpool` (each child with its own children
/// already inside), then read back beside its parents, which come in the same order (a child's key
/// begins with its parent's). Memory holds one buffer per relationship.
struct NestedRecords {
    let snapshot: StoreSnapshot
    let number: Int64
    /// Children whose parent is not among the records, by child entity.
    private(set) var orphans: [String: Int] = [:]

    init(snapshot: StoreSnapshot, asOf number: Int64) {
        self.snapshot = snapshot
        self.number = number
    }

    /// Calls `body` with each record of `tree.entity` and a function that writes its children's
    /// members (`"relationship": [ … ]`) into the record's JSON object.
    mutating func forEachRecord(of tree: ExportTree, _ body: ([Value], (inout JSONWriter) throws -> Void) throws -> Void) throws {
        var readers: [(name: String, reader: ChildSpool.Reader)] = []
        for child in tree.children {
            readers.append((child.relationship?.name ?? child.entity.name, try spool(child)))
        }
        let keyIndices = tree.entity.keyIndices
        try snapshot.forEachRecord(of: tree.entity, asOf: number) { values in
            let key = keyIndices.map { values[$0] }
            try body(values) { json in
                for (name, reader) in readers {
                    json.key(name)
                    json.beginArray()
                    try reader.take(key) { json.value(bytes: $0) }
                    json.endArray()
                }
            }
        }
        for (child, (_, reader)) in zip(tree.children, readers) {
            try reader.finish()
            if reader.orphans > 0 { orphans[child.entity.name, default: 0] += reader.orphans }
        }
    }

    /// Writes `tree`'s records, each a JSON object with its own children inside, to a spool keyed
    /// by their parent's key.
    private mutating func spool(_ tree: ExportTree) throws -> ChildSpool.Reader {
        let parentKeyCount = tree.entity.uniqueKey.count - (tree.relationship?.ownKey.count ?? 0)
        let spool = try ChildSpool(keyCount: parentKeyCount)
        let written = tree.writtenAttributes
        let keyIndices = tree.entity.keyIndices.prefix(parentKeyCount)
        let object = OutputSink.memory()
        try forEachRecord(of: tree) { values, writeChildren in
            var json = JSONWriter(output: object)
            json.beginObject()
            for (index, name) in written { json.field(name, values[index]) }
            try writeChildren(&json)
            json.endObject()
            try object.drainMemory { try spool.append(key: ArraySlice(keyIndices.map { values[$0] }), json: $0) }
        }
        return try spool.reader()
    }
}
