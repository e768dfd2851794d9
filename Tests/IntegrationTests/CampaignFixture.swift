import Foundation
import ImporterTestSupport
import PostgresTestSupport
import Testing

/// A campaign's fixture as a recipe, so that one campaign runs on both backends: the inputs it
/// writes, the commands (each without `--store`) that fill a new store from them, and a command
/// that takes the writer lock and succeeds in the old state and the new one (after a kill on
/// PostgreSQL, it shows the killed session's lock was released).
protocol CampaignFixture: Sendable {
    var name: String { get }
    func writeInputs(in directory: TemporaryDirectory) throws
    var setup: [[String]] { get }
    var lockProbe: [String] { get }
}

extension CampaignFixture {
    /// Runs `setup` on `store` in `directory`.
    func fill(_ store: String, in directory: TemporaryDirectory) throws {
        for arguments in setup {
            let execution = try importer(arguments + ["--store", store], directory: directory.url)
            guard execution.status == 0 else { throw FaultCampaign.SetupError.failed("\(arguments): \(execution.stderr)") }
        }
    }
}

/// A recipe's stores as SQLite files.
struct SQLiteRecipeStores<Fixture: CampaignFixture>: SQLiteFixtureStores {
    let recipe: Fixture
    var kind: String { "SQLite, \(recipe.name)" }

    func fixture(in directory: TemporaryDirectory) throws -> String {
        try recipe.writeInputs(in: directory)
        let store = directory.path("fixture.sqlite")
        try recipe.fill(store, in: directory)
        return store
    }
}

/// A recipe's stores as databases of the shared test cluster, a copy made from the fixture's as a
/// template; digests renumber what identity sequences give (a rolled-back transaction leaves a gap).
struct PostgresRecipeStores<Fixture: CampaignFixture>: CampaignStores {
    let recipe: Fixture
    let cluster: PostgresTestCluster
    var kind: String { "PostgreSQL, \(recipe.name)" }

    func fixture(in directory: TemporaryDirectory) throws -> String {
        try recipe.writeInputs(in: directory)
        let url = try cluster.newStoreURL()
        try recipe.fill(url, in: directory)
        return url
    }

    func copy(of fixture: String, named name: String) throws -> String { try cluster.newStoreURL(copying: fixture) }
    func digest(_ store: String) throws -> String { try PostgresStoreDigest.of(store, in: cluster) }
    func rerunDigest(_ store: String) throws -> String { try PostgresStoreDigest.of(store, in: cluster, renumbering: PostgresStoreDigest.sequenceColumns) }
    func remove(_ store: String) { try? cluster.dropStore(store) }

    func checkAfterKill(_ store: String, context: String, in directory: TemporaryDirectory) throws {
        let next = try importer(recipe.lockProbe + ["--wait", "10", "--store", store], directory: directory.url)
        #expect(next.status == 0, "\(context): the next writer was blocked: \(next.stderr)")
    }
}
