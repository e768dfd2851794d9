import ArgumentParser
import Foundation
import ImporterKit

struct DeliverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deliver",
        abstract: "Deliver a consumer's pending changes at least once: to a command, or to a signed webhook.",
        discussion: """
            Hands each pending transaction of --consumer (after its token, through its filters), \
            oldest first, to a receiver, and moves the consumer's token past it only once the \
            receiver took it: at least once, never skipping one. --exec CMD runs CMD with /bin/sh \
            -c, the transaction's changes on its standard input and IMPORTER_DELIVERY_ID, \
            IMPORTER_TOKEN, IMPORTER_CONSUMER and IMPORTER_STORE in its environment; exit 0 is \
            received. --webhook URL POSTs them with the Standard Webhooks headers (webhook-id, \
            webhook-timestamp, webhook-signature), signed with the whsec_ secret in \
            --webhook-secret-file; a 2xx answer is received. The delivery id is the same on every \
            attempt, after a crash and from every host, so the receiver can drop repeats.

            A temporary failure (exit 75; HTTP 408, 429, 5xx; connection errors, timeouts) is \
            retried with backoff and jitter until --deadline, then exits 75; any other failure \
            stops at that transaction and exits 65 naming it. Either way its token stays before \
            it. One deliver per consumer runs at a time: another waits up to --wait seconds, then \
            exits 75. Transactions with nothing for the consumer are passed over.

            Examples:
              importer deliver --consumer mailer --exec './notify --batch'
              importer deliver --consumer mailer --format ndjson --exec 'psql -c "\\copy inbox FROM STDIN"'
              importer deliver --consumer crm --webhook https://crm.example/hooks/importer --webhook-secret-file /etc/importer/crm.secret
            """
    )

    @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp("The external consumer whose pending changes to deliver.", valueName: "name"), completion: .custom(StoreNames.externalConsumers))
    var consumer: String

    @OptionGroup(title: "Receiver options") var receiverOptions: ReceiverOptions

    @OptionGroup(title: "Metrics options") var metrics: MetricsOptions

    func validate() throws {
        guard receiverOptions.given else { throw ValidationError("give one receiver: --exec COMMAND or --webhook URL") }
    }

    func run() throws {
        try runReportingErrors(storeOptions.logging, metrics: metrics.target(command: "deliver", store: storeOptions)) { observed in
            let logger = storeOptions.logging.makeLogger()
            let receiver = try receiverOptions.makeReceiver()
            defer { receiver.close() }
            let store = try storeOptions.open(create: false)
            var loop = receiverOptions.loop(store: store, consumer: consumer, receiver: receiver, storeOptions: storeOptions, logger: logger)
            loop.cancellation = InterruptHandler.current?.flag
            let summary = try loop.run()
            observed.delivered = (consumer, summary.delivered, summary.skipped)
            logger.notice("\(summary.delivered) transaction\(summary.delivered == 1 ? "" : "s") delivered to consumer '\(consumer)'\(summary.skipped > 0 ? ", \(summary.skipped) with nothing for it passed over" : ""); its token is \(store.token(summary.through))")
            return .success
        }
    }
}
