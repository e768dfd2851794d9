import ArgumentParser
import Foundation
import ImporterKit

struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Run one read-only SQL statement against the store and print its rows.",
        discussion: """
            The statement runs where the database keeps it read-only (SQLite: a connection of \
            its own, opened read-only, PRAGMA query_only; PostgreSQL: a cursor in a READ ONLY \
            transaction): a statement that would write \
            (INSERT, UPDATE, DELETE, CREATE, DROP, …) fails with exit 65 and the store is \
            unchanged: the database, not importer, refuses it. Named parameters (:name) are bound with \
            --param name=VALUE (a whole number as an integer, anything else as text): never paste \
            values into the SQL. The tables are described in Docs/STORE.md ("The store").

            Examples:
              importer query "SELECT region, count FROM fireball_by_region"
              importer query "SELECT * FROM fireball WHERE energy > :e" --param e=10
              importer query "SELECT number, author FROM importer_transaction" --format csv
              count=$(importer query "SELECT count(*) FROM fireball" --raw)
            """
    )

    @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("One SQL statement (SELECT, WITH, read-only PRAGMA, EXPLAIN …).", valueName: "sql"))
    var sql: String

    @Option(name: .customLong("param"), help: ArgumentHelp("Bind the statement's :NAME to VALUE (repeatable).", valueName: "name=value"))
    var parameters: [String] = []

    @Option(name: .long, help: "Output format: table, json (an array of objects), ndjson (an object per line) or csv.")
    var format: QueryRowsReport.Format = .table

    @Flag(name: .long, help: "Print the first column of the first row as it is, nothing else (for shell variables).")
    var raw = false

    func validate() throws {
        _ = try boundParameters()
    }

    private func boundParameters() throws -> [String: String] {
        var bound: [String: String] = [:]
        for parameter in parameters {
            guard let equals = parameter.firstIndex(of: "="), equals != parameter.startIndex else {
                throw ValidationError("--param '\(parameter)': give NAME=VALUE")
            }
            let name = String(parameter[..<equals]).trimmingCharacters(in: CharacterSet(charactersIn: ":@$"))
            guard bound.updateValue(String(parameter[parameter.index(after: equals)...]), forKey: name) == nil else {
                throw ValidationError("--param \(name) is given twice")
            }
        }
        return bound
    }

    func run() throws {
        try runReportingErrors(storeOptions.logging) {
            let store = try storeOptions.openForReading()
            let output = OutputSink()
            var printer = QueryRowsReport(format: raw ? nil : format, output: output)
            do {
                try store.query(sql, parameters: try boundParameters(), columns: { printer.begin($0) }, row: { try printer.row($0) })
            } catch let error as QueryError {
                if case .store(let storeError) = error { throw storeError }
                storeOptions.logging.makeLogger().error("\(RemedyWording.message(for: error))")
                return error.exitStatus
            }
            printer.end()
            try output.flush()
            return .success
        }
    }
}

extension QueryRowsReport.Format: ExpressibleByArgument {}
