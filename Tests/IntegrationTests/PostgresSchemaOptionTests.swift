import ImporterTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// `--pg-schema NAME` on every command that takes `--store`: it picks the store's schema in a
/// PostgreSQL database (over the URL's `?schema=`), so that one database holds several stores, each
/// with its own records, history and consumers; with an SQLite store it is a usage error.
@Suite struct PostgresSchemaOptionTests {
    @Test func twoStoresInTwoSchemasOfOneDatabase() throws {
        let cluster = try PostgresTestCluster.start()
        let url = try cluster.newStoreURL()
        let database = PostgresTestCluster.database(of: url)
        @discardableResult func run(_ schema: String, _ arguments: [String]) throws -> Execution {
            let execution = try importer(arguments + ["--store", url, "--pg-schema", schema])
            #expect(execution.status == 0, "\(schema) \(arguments): \(execution.stderr)")
            return execution
        }
        try run("alpha", ["run", "--no-replay", sample("fireball-2024.json")])
        try run("beta", ["run", "--no-replay", "--author", "beta-feed", sample("fireball-2026.json")])
        try run("alpha", ["run", "--no-replay", "--sync", sample("fireball-2026.json")])
        try run("beta", ["consumers", "add", "mailer", "--from", "beginning"])

        #expect(try cluster.psql("SELECT count(*) FROM alpha.importer_transaction", database: database) == "2")
        #expect(try cluster.psql("SELECT count(*) FROM beta.importer_transaction", database: database) == "1")
        #expect(try cluster.psql("SELECT string_agg(DISTINCT author, ',') FROM beta.importer_transaction", database: database) == "beta-feed")
        #expect(try cluster.psql("SELECT count(*) FROM alpha.fireball", database: database) == "11")
        #expect(try cluster.psql("SELECT count(*) FROM beta.fireball", database: database) != "0")
        #expect(try cluster.psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", database: database) == "0")

        #expect(try run("alpha", ["status"]).stdout.contains("2 transaction(s)"))
        #expect(try run("beta", ["status"]).stdout.contains("1 transaction(s)"))
        #expect(try run("alpha", ["history"]).stdout.contains("Transaction 2"))
        #expect(!(try run("beta", ["history"]).stdout.contains("Transaction 2")))
        #expect(try run("beta", ["consumers", "list"]).stdout.contains("mailer"))
        #expect(!(try run("alpha", ["consumers", "list"]).stdout.contains("mailer")))
        // The option wins over the URL's schema.
        let overridden = try importer(["status", "--store", url + "?schema=beta", "--pg-schema", "alpha"])
        #expect(overridden.status == 0 && overridden.stdout.contains("2 transaction(s)"), "\(overridden.stdout)\(overridden.stderr)")
        let fromURL = try importer(["status", "--store", url + "?schema=beta"])
        #expect(fromURL.status == 0 && fromURL.stdout.contains("1 transaction(s)"), "\(fromURL.stdout)\(fromURL.stderr)")
        // A schema name in mixed case is one schema, created and found again by its exact name.
        try run("Feeds2026", ["run", sample("fireball-2024.json")])
        #expect(try run("Feeds2026", ["status"]).stdout.contains("1 transaction(s)"))
        #expect(try cluster.psql("SELECT count(*) FROM \"Feeds2026\".fireball", database: database) == "10")
    }

    @Test func anSQLiteStoreRefusesTheOption() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let refused = try importer(["run", "--store", store, "--pg-schema", "alpha", sample("fireball-2024.json")])
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(refused.stderr.contains("--pg-schema") && refused.stderr.contains("SQLite file"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store))
        let fromEnvironment = try importer(["status", "--pg-schema", "alpha"], environment: ["IMPORTER_STORE": store])
        #expect(fromEnvironment.status == 64 && fromEnvironment.stderr.contains("--pg-schema"), "\(fromEnvironment.stderr)")
    }

    /// A location that cannot be right whatever the server says is a usage error (64), named
    /// without its password, and nothing is connected to or written.
    @Test func anInvalidSchemaSSLModeOrURLIsAUsageError() throws {
        let url = try PostgresTestCluster.start().newStoreURL()
        let database = PostgresTestCluster.database(of: url)
        let cases: [([String], String)] = [
            (["--store", url, "--pg-schema", "bad-name"], "not a valid schema name"),
            (["--store", url.replacingOccurrences(of: "postgres@", with: "postgres:hunter2@") + "?sslmode=sometimes"], "sslmode must be"),
        ]
        for (arguments, message) in cases {
            let refused = try importer(["run"] + arguments + [sample("fireball-2024.json")])
            #expect(refused.status == 64 && refused.stderr.contains(message) && !refused.stderr.contains("hunter2"), "\(refused.stderr)")
        }
        let cluster = try PostgresTestCluster.start()
        #expect(try cluster.psql("SELECT count(*) FROM pg_tables WHERE tablename = 'importer_metadata'", database: database) == "0")
    }

    @Test func everyCommandThatTakesStoreTakesPgSchema() throws {
        for words in OptionNamingTests.storeCommands {
            let help = try importer(words + ["--help"])
            #expect(help.stdout.contains("--pg-schema <name>"), "\(words.joined(separator: " ")) --help has no --pg-schema")
        }
    }
}
