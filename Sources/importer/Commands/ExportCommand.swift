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

            In JSON and NDJSON an entity with children (a relationship of its model) holds them \
            under the relationship's name, their own children inside them; --flat leaves them out. \
            CSV is flat: with --output FILE each child entity goes to a file of its own beside it \
            (stations.csv, stations.StationVehicle.csv).

            Examples:
              importer export --format csv --output fireballs.csv
              importer export --as-of 7d --format ndjson
              importer export --entity Fireball --as-of "$token" --format json
              importer export --entity Station --format csv --output stations.csv
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

    @Flag(name: .long, help: "Leave an entity's children out (JSON and NDJSON nest them by default).")
    var flat = false

    func run() throws {
        try runReportingErrors(storeOptions.logging) {
            let store = try storeOptions.openForReading()
            let logger = storeOptions.logging.makeLogger()
            var files = [try OutputFile(path: output)]
            try store.read { (snapshot: StoreSnapshot) throws in
                try store.reloadEntities()
                let tree = try exportTree(of: store, in: snapshot)
                let number = try point(of: store, in: snapshot)
                // The past is read through today's model: said when a migration changed it since.
                if let migration = try snapshot.records.registeredModels().first(where: { ($0.transaction ?? 0) > number && !$0.steps.isEmpty }),
                   let at = migration.transaction {
                    let steps = migration.steps.joined(separator: "; ")
                    logger.warning("the records as of transaction \(number) are shown in today's model: migration \(at) (\(steps)) applies to the past too (renamed, converted and filled values; removed attributes are left out)")
                }
                let written = try RecordExport().write(tree, asOf: number, as: format, in: snapshot, to: files[0].sink)
                for (entity, count) in written.orphans.sorted(by: { $0.key < $1.key }) {
                    logger.warning("\(count) \(entity) record(s) have no parent among the \(tree.entity.name) records and are not nested; export them with --entity \(entity)")
                }
                guard format == .csv, !tree.descendants.isEmpty else { return }
                guard output != "-" else {
                    logger.notice("\(tree.entity.name)'s children are other entities: \(tree.descendants.map(\.name).joined(separator: ", ")) (export --entity NAME, or --output FILE for a file each)")
                    return
                }
                for child in tree.descendants {
                    let file = try OutputFile(path: Self.path(output, for: child.name))
                    files.append(file)
                    try RecordExport().write(ExportTree(child, relationships: [], entities: []), asOf: number, as: .csv, in: snapshot, to: file.sink)
                }
            }
            for file in files { try file.commit() }
            return .success
        }
    }

    /// The entity to export, with its children unless `--flat`.
    private func exportTree(of store: Store, in snapshot: StoreSnapshot) throws -> ExportTree {
        let chosen = try entity.map { name in
            guard let found = store.entity(named: name) else {
                throw ValidationError("unknown entity '\(name)' (the store has: \(store.entities.map(\.name).joined(separator: ", ")))")
            }
            return found
        } ?? store.entities.first
        guard let chosen else { throw ValidationError("the store holds no entity yet") }
        let relationships = flat ? [] : try snapshot.records.registeredRelationships()
        return ExportTree(chosen, relationships: relationships, entities: store.entities)
    }

    /// `stations.csv` → `stations.StationVehicle.csv`: where a child entity's CSV goes.
    static func path(_ output: String, for entity: String) -> String {
        let url = URL(fileURLWithPath: output)
        let stem = url.pathExtension.isEmpty ? url.lastPathComponent : url.deletingPathExtension().lastPathComponent
        let ext = url.pathExtension.isEmpty ? "csv" : url.pathExtension
        return url.deletingLastPathComponent().appendingPathComponent("\(stem).\(entity).\(ext)").path
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
