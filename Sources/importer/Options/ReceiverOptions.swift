import ArgumentParser
import Foundation
import ImporterKit
import Logging

/// `--exec` or `--webhook` (with `--webhook-secret-file`, `--cacert`), `--format` and `--deadline`:
/// where `deliver` and `watch --deliver` hand each transaction, and how.
struct ReceiverOptions: ParsableArguments {
    @Option(name: .customLong("exec"), help: ArgumentHelp("Run this command (with /bin/sh -c) once per transaction, its changes on standard input.", valueName: "command"))
    var command: String?

    @Option(name: .long, help: ArgumentHelp("POST each transaction to this http(s) URL, signed (Standard Webhooks).", valueName: "url"))
    var webhook: String?

    @Option(name: .customLong("webhook-secret-file"), help: ArgumentHelp("The file holding the webhook's signing secret, whsec_<base64> (never give it on the command line).", valueName: "file"), completion: .file())
    var webhookSecretFile: String?

    @Option(name: .long, help: ArgumentHelp("A PEM file of CA certificates trusted for an https webhook, besides the system's.", valueName: "file"), completion: .file())
    var cacert: String?

    @Option(name: .long, help: ArgumentHelp("How each transaction's changes are written: json (one document) or ndjson (one line per change).", valueName: "format"))
    var format: DeliveryFormat = .json

    @Option(name: .long, help: ArgumentHelp("How long to retry one transaction's temporary failures (90s, 5m, 1h) before giving up with exit 75.", valueName: "duration"))
    var deadline = "90s"

    var given: Bool { command != nil || webhook != nil }

    func validate() throws {
        if command != nil && webhook != nil { throw ValidationError("give one receiver: --exec COMMAND or --webhook URL, not both") }
        if webhook != nil && webhookSecretFile == nil { throw ValidationError("--webhook needs --webhook-secret-file FILE (the whsec_ secret it signs with)") }
        if webhook == nil && (webhookSecretFile != nil || cacert != nil) { throw ValidationError("--webhook-secret-file and --cacert go with --webhook") }
        if let webhook, URL(string: webhook)?.host == nil { throw ValidationError("--webhook: '\(webhook)' is not an http(s) URL") }
        guard FetchDuration(parsing: deadline) != nil else { throw ValidationError("--deadline: '\(deadline)' is not a duration (e.g. 90s, 5m, 1h)") }
    }

    /// The receiver the options name (the webhook's secret read now: exit 78 when it cannot be).
    func makeReceiver() throws -> any Receiver {
        if let command {
            var receiver = CommandReceiver(command: command)
            receiver.cancellation = InterruptHandler.current?.flag
            return receiver
        }
        guard let webhook, let url = URL(string: webhook), let webhookSecretFile else { throw ValidationError("give one receiver: --exec COMMAND or --webhook URL") }
        return try WebhookReceiver(url: url, secret: try WebhookSecret.read(path: webhookSecretFile), caFile: cacert)
    }

    /// A delivery of `consumer` in `store` to `receiver`, as the options and `storeOptions` say.
    func loop(store: Store, consumer: String, receiver: any Receiver, storeOptions: StoreOptions, logger: Logger) -> DeliveryLoop {
        var loop = DeliveryLoop(store: store, consumer: consumer, receiver: receiver)
        loop.format = format
        loop.deadline = FetchDuration(parsing: deadline) ?? loop.deadline
        loop.lockWaitMilliseconds = storeOptions.noWait ? 0 : Int(storeOptions.wait * 1000)
        loop.onDelivered = { attempt, attempts in
            logger.info("delivered transaction \(attempt.transaction) to '\(attempt.consumer)' (\(attempt.deliveryID))\(attempts > 1 ? " after \(attempts) attempts" : "")")
        }
        return loop
    }
}

extension DeliveryFormat: ExpressibleByArgument {}
