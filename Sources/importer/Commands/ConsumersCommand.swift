import ArgumentParser
import Foundation
import ImporterKit

struct ConsumersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "consumers",
        abstract: "Manage the named readers of history whose tokens the store keeps.",
        discussion: """
            A consumer reads the changes after its token (importer history --consumer NAME \
            --ack, importer watch --consumer NAME), through its filters. Views are consumers \
            too: they are listed here, and replayed by importer replay.

            Examples:
              importer consumers add mailer --attribute energy --exclude-author mailer
              importer consumers list
              importer consumers reset mailer --to beginning
            """,
        subcommands: [Add.self, List.self, Remove.self, Reset.self]
    )

    enum Position: ExpressibleByArgument {
        case now, beginning
        case token(String)

        init?(argument: String) {
            switch argument {
            case "now": self = .now
            case "beginning": self = .beginning
            default: self = .token(argument)
            }
        }

        /// The transaction number of this position in `store`, as `snapshot` sees it.
        func transactionNumber(of store: Store, in snapshot: StoreSnapshot) throws -> Int64 {
            switch self {
            case .now: try snapshot.history.lastTransactionNumber()
            case .beginning: try snapshot.history.purgedThrough()
            case .token(let text): try store.parseToken(text).transactionNumber
            }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an external consumer with its filters.",
            discussion: """
                The consumer starts at the head (--from now, the default: it sees only future \
                changes) or at the oldest kept history (--from beginning). Filters: --entity (only \
                these entities), --attribute (updates count only when they touch one of these; \
                inserts and deletes always count), --exclude-author (skip these authors' transactions).

                Examples:
                  importer consumers add mailer --attribute energy --exclude-author mailer
                  importer consumers add archive --from beginning --format json
                """
        )
        @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions
        @Argument(help: "The consumer's name (letters, digits, _, -, .).") var name: String
        @Option(name: .long, help: ArgumentHelp("Only changes of this entity (repeatable).", valueName: "entity")) var entity: [String] = []
        @Option(name: .long, help: ArgumentHelp("Only updates touching this attribute (repeatable).", valueName: "attribute")) var attribute: [String] = []
        @Option(name: .customLong("exclude-author"), help: ArgumentHelp("Skip transactions by this author (repeatable).", valueName: "author")) var excludeAuthor: [String] = []
        @Option(name: .long, help: "Where the consumer starts: now or beginning.") var from: Position = .now
        @Option(name: .long, help: "Output format: text or json.") var format: ListFormat = .text

        func validate() throws {
            if case .token = from { throw ValidationError("--from must be now or beginning") }
            if let problem = Consumer.problem(withName: name) { throw ValidationError(problem) }
        }

        /// Filters must name what the store holds (when it holds entities already).
        func check(against store: Store) throws {
            guard !store.entities.isEmpty else { return }
            for name in entity where store.entity(named: name) == nil {
                throw ValidationError("unknown entity '\(name)' (the store has: \(store.entities.map(\.name).joined(separator: ", ")))")
            }
            let candidates = store.entities.filter { entity.isEmpty || entity.contains($0.name) }
            for name in attribute where !candidates.contains(where: { $0.attribute(named: name) != nil }) {
                throw ValidationError("unknown attribute '\(name)'")
            }
        }

        func run() throws {
            try runReportingErrors(storeOptions.logging) {
                let store = try storeOptions.open(create: true)
                try check(against: store)
                let start = try store.write { (tx: StoreWriteTransaction) throws -> Int64 in
                    let start = try from.transactionNumber(of: store, in: tx.snapshot)
                    try tx.addConsumer(Consumer(name: name, kind: .external, tokenNumber: start, entities: entity,
                                                        attributes: attribute, excludedAuthors: excludeAuthor))
                    return start
                }
                try confirmation("Added consumer \(name) at transaction \(start).", format: format) { json in
                    json.field("added", name)
                    json.field("transaction", start)
                    json.field("token", store.token(start).description)
                }
                return .success
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List consumers (views included): token, lag, last replay, filters.",
            discussion: """
                Examples:
                  importer consumers list
                  importer consumers list --format json
                """
        )
        @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions
        @Option(name: .long, help: "Output format: text or json.") var format: ListFormat = .text

        func run() throws {
            try storeOptions.read { store, snapshot, output in
                let purged = try snapshot.history.purgedThrough()
                let statuses = try snapshot.consumerStatuses(storeID: store.storeID)
                ConsumerListReport(statuses, purgedThrough: purged).render(as: format, to: output)
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an external consumer (its pending history may then be purged).",
            discussion: """
                Examples:
                  importer consumers remove mailer
                """
        )
        @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions
        @Argument(help: "The consumer's name.", completion: .custom(StoreNames.externalConsumers)) var name: String
        @Option(name: .long, help: "Output format: text or json.") var format: ListFormat = .text

        func run() throws {
            try runReportingErrors(storeOptions.logging) {
                let store = try storeOptions.open(create: false)
                try store.write { (tx: StoreWriteTransaction) throws in
                    guard try tx.snapshot.consumer(named: name).kind == .external else {
                        throw ValidationError("'\(name)' is a view; views are removed from the model, not here")
                    }
                    try tx.removeConsumer(named: name)
                }
                try confirmation("Removed consumer \(name).", format: format) { $0.field("removed", name) }
                return .success
            }
        }
    }

    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move a consumer's token (the recovery from an expired token).",
            discussion: """
                --to now skips everything pending; --to beginning replays all kept history; \
                --to TOKEN sets an exact position (it must not be older than the kept history).

                Examples:
                  importer consumers reset mailer --to beginning
                  importer consumers reset mailer --to now
                """
        )
        @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions
        @Argument(help: "The consumer's name.", completion: .custom(StoreNames.externalConsumers)) var name: String
        @Option(name: .long, help: ArgumentHelp("now, beginning, or a token.", valueName: "position")) var to: Position = .now
        @Option(name: .long, help: "Output format: text or json.") var format: ListFormat = .text

        func run() throws {
            try runReportingErrors(storeOptions.logging) {
                let store = try storeOptions.open(create: false)
                let number = try store.write { (tx: StoreWriteTransaction) throws -> Int64 in
                    let consumer = try tx.snapshot.consumer(named: name)
                    guard consumer.kind == .external else {
                        throw ValidationError("'\(name)' is a view; rebuild it with: importer views rebuild \(name)")
                    }
                    let number = try to.transactionNumber(of: store, in: tx.snapshot)
                    let purged = try tx.history.purgedThrough()
                    guard number >= purged else {
                        throw HistoryError.expiredToken(consumer: name, kind: .external, token: number, purgedThrough: purged)
                    }
                    guard number <= (try tx.history.lastTransactionNumber()) else { throw ValidationError("the token is ahead of the store's history") }
                    try tx.setConsumerToken(name, to: number, replayed: false)
                    return number
                }
                try confirmation("Consumer \(name) is at transaction \(number) (token \(store.token(number))).", format: format) { json in
                    json.field("consumer", name)
                    json.field("transaction", number)
                    json.field("token", store.token(number).description)
                }
                return .success
            }
        }
    }
}
