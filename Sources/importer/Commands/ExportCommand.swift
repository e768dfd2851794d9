import ArgumentParser
import Foundation
import ImporterKit

extension RecordExport.Format: ExpressibleByArgument {}

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write an entity's records, now or as they stood at a past point of history.",
        discussion: """
            Records come in key order, with every stored attribute. --as-of reads the store as it \
            was after a transaction (a token) or at a date (after the last transaction before it), \
            from the table as it is now and the history since, walked back; a point before purged \
            history is an expired token (exit 3).

            Examples:
              importer export --format csv --output fireballs.csv
              importer export --as-of 7d --format ndjson
              importer export --entity Fireball --as-of "$token" --format json
            """
    )

    @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp("The entity to export (default: the store's only, or first, entity).", valueName: "name"))
    var entity: String?

    @Option(name: .customLong("as-of"), help: ArgumentHelp("A token, or a date: 2026-01-01, 2026-01-01T08:30:00+02:00 (ISO 8601; UTC without an offset), or a time ago: 12h, 7d; default: now.", valueName: "token|date"))
    var asOf: String?

    @Option(name: .long, help: "Output format: json, ndjson or csv.")
    var format: RecordExport.Format = .json

    @Option(name: .long, help: ArgumentHelp("Write to this file (atomically; - is standard output).", valueName: "file"), completion: .file())
    var output: String = "-"

    func run() throws {
        try runReportingErrors(storeOptions.logging) {
            let store = try storeOptions.openForReading()
            let file = try OutputFile(path: output)
            try store.read { (snapshot: StoreSnapshot) throws in
                try store.reloadEntities()
                let chosen = try entity.map { name in
                    guard let found = store.entity(named: name) else {
                        throw ValidationError("unknown entity '\(name)' (the store has: \(store.entities.map(\.name).joined(separator: ", ")))")
                    }
                    return found
                } ?? store.entities.first
                guard let chosen else { throw ValidationError("the store holds no entity yet") }
                try RecordExport().write(chosen, asOf: try point(of: store, in: snapshot), as: format, in: snapshot, to: file.sink)
            }
            try file.commit()
            return .success
        }
    }

    /// The transaction number `--as-of` names in `store` (the head without it), as `snapshot` sees it.
    private func point(of store: Store, in snapshot: StoreSnapshot) throws -> Int64 {
        guard let asOf else { return try snapshot.history.lastTransactionNumber() }
        let token: String
        switch try TokenOrDate(asOf, option: "--as-of") {
        case .date(let timestamp):
            // Before every kept transaction: the start of history (expired when some was purged).
            return try snapshot.history.lastTransaction(before: timestamp) ?? 0
        case .token(let text):
            token = text
        }
        let number = try store.parseToken(token).transactionNumber
        guard number <= (try snapshot.history.lastTransactionNumber()) else { throw ValidationError("--as-of: the store has no transaction \(number) yet") }
        return number
    }
}
