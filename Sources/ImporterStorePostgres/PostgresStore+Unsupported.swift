import Foundation
import ImporterModel
import ImporterStore

/// The parts of the store protocol this backend does not implement yet: each fails with
/// `StoreError.unsupported` naming what was asked (exit 78), before anything is written. The
/// README lists the commands that work on PostgreSQL today.
extension PostgresStore: StoreBackend {
    static let views = "maintaining derived views (import with --no-replay)"


    public func transactionsTouching(_ entity: EntityDescription, recordIDs: [Int64], after number: Int64) throws -> [Int64] {
        throw unsupported("undo")
    }

    public func beginUndo(_ entities: [EntityDescription]) throws -> any UndoTransaction { throw unsupported("undo") }

    /// No view can be installed yet, so none is registered.
    public func registeredViews() throws(StoreError) -> [ViewDefinition] { [] }
    public func rebuildViews(_ views: [ViewDefinition]) throws {
        guard views.isEmpty else { throw unsupported(Self.views) }
    }
    public func installView(_ view: ViewDefinition, replacing: Bool) throws { throw unsupported(Self.views) }
    public func viewRows(_ view: ViewDefinition) throws -> [[Value]: [Value]] { throw unsupported(Self.views) }
    public func recomputedViewRows(_ view: ViewDefinition) throws -> [[Value]: [Value]] { throw unsupported(Self.views) }
    public func orderedViewRows(_ view: ViewDefinition) throws -> (columns: [String], rows: [[Value]]) { throw unsupported(Self.views) }
    public func applyViewChanges(_ view: ViewDefinition, changes: ClosedRange<Int64>, into effect: inout ViewEffect) throws {
        throw unsupported(Self.views)
    }


}
