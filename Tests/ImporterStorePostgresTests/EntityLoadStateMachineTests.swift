import ImporterTestSupport
@testable import ImporterModel
@testable import ImporterStorePostgres
import Testing

/// `EntityLoadStateMachine` without a server: where each batch of an entity goes (straight into
/// the table, the stage, nowhere) and that the apply happens once.
@Suite struct EntityLoadStateMachineTests {
    private typealias Machine = EntityLoadStateMachine
    private static let batch = DirectKeysTests.batch

    private static func keys() -> DirectKeys {
        DirectKeys(entity: DirectKeysTests.entity, columns: [0], keyPositions: [0])
    }

    @Test func aFirstLoadGoesDirectUntilAKeyRepeatsThenStagesForGood() {
        var machine = Machine()
        #expect(machine.batch(Self.batch([.real(1)]), sameColumns: true) == .begin, "nothing begun yet")
        machine.begun(firstLoad: true, keys: Self.keys())
        #expect(machine.batch(Self.batch([.real(1), .real(2)]), sameColumns: true) == .copyDirect)
        #expect(machine.batch(Self.batch([.real(3)]), sameColumns: true) == .copyDirect)
        #expect(machine.batch(Self.batch([.real(4), .real(2)]), sameColumns: true) == .stage, "2 was admitted before")
        #expect(machine.batch(Self.batch([.real(5)]), sameColumns: true) == .stage, "staged for good once a batch was")
        #expect(machine.apply() == .merge && machine.isApplied)
        #expect(machine.apply() == .none, "applied once")
        #expect(machine.batch(Self.batch([.real(6)]), sameColumns: true) == .refuse)
    }

    @Test func otherColumnsAndLaterLoadsAreStaged() {
        var direct = Machine()
        direct.begun(firstLoad: true, keys: Self.keys())
        #expect(direct.batch(Self.batch([.real(1)]), sameColumns: false) == .stage, "a feed supplying other attributes")
        #expect(direct.batch(Self.batch([.real(2)]), sameColumns: true) == .stage)
        var reload = Machine()
        reload.begun(firstLoad: false, keys: Self.keys())
        #expect(reload.batch(Self.batch([.real(1)]), sameColumns: true) == .stage)
        reload.begun(firstLoad: true, keys: Self.keys())
        #expect(reload.batch(Self.batch([.real(2)]), sameColumns: true) == .stage, "begun once")
    }

    @Test func anEntityWithoutBatchesAppliesNothing() {
        var machine = Machine()
        #expect(machine.apply() == .nothingStaged && machine.isApplied)
        #expect(machine.apply() == .none)
        #expect(machine.batch(Self.batch([.real(1)]), sameColumns: true) == .refuse)
    }
}
