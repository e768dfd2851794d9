import ArgumentParser
import Dispatch
import Foundation
import ImporterKit
import Logging
import Synchronization

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Wait for history written by other processes; replay views and stream consumers' changes.",
        discussion: """
            Checks every --interval seconds whether another process committed (PRAGMA \
            data_version; no busy loop). Each time, it replays every derived view and writes the \
            new changes of each --consumer as NDJSON on standard output (one line per change, with \
            a "consumer" field), advancing that consumer's token once the lines are written. \
            SIGINT and SIGTERM stop it cleanly between passes, tokens saved.

            With --deliver, each --consumer's transactions go to the receiver instead, as \
            `importer deliver` hands them (--exec CMD or --webhook URL; at least once, the token \
            moved after each receipt): a temporary failure past --deadline, or another deliver at \
            work on the consumer, is logged and tried again at the next interval; a refusal \
            stops watch with exit 65.

            Examples:
              importer watch
              importer watch --consumer mailer --interval 2 | ./notify
              importer watch --consumer mailer --deliver --exec './notify --one'
            """
    )

    @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp("An external consumer whose changes to print (repeatable).", valueName: "name"), completion: .custom(StoreNames.externalConsumers))
    var consumer: [String] = []

    @Option(name: .long, help: ArgumentHelp("Seconds between checks for new history.", valueName: "seconds"))
    var interval: Double = 1

    @Flag(name: .long, help: "Deliver each --consumer's transactions to the receiver (--exec or --webhook) instead of printing them.")
    var deliver = false

    @OptionGroup(title: "Receiver options (with --deliver)") var receiverOptions: ReceiverOptions

    func validate() throws {
        if deliver && (!receiverOptions.given || consumer.isEmpty) { throw ValidationError("--deliver needs --consumer NAME and a receiver: --exec COMMAND or --webhook URL") }
        if !deliver && receiverOptions.given { throw ValidationError("--exec and --webhook go with --deliver") }
        guard interval >= 0.05, interval <= 3600 else { throw ValidationError("--interval must be between 0.05 and 3600 seconds") }
    }

    func run() throws {
        try runReportingErrors(storeOptions.logging, interruptible: false) {
            let store = try storeOptions.open(create: false)
            for name in consumer where try store.read({ (snapshot: StoreSnapshot) throws -> Consumer in
                try snapshot.consumer(named: name)
            }).kind != .external {
                throw ValidationError("'\(name)' is a view; watch replays every view anyway")
            }
            let logger = storeOptions.logging.makeLogger()
            let stop = StopSignal()
            let receiver = deliver ? try receiverOptions.makeReceiver() : nil
            defer { receiver?.close() }
            let watcher = HistoryWatcher(store: store, consumers: deliver ? [] : consumer, output: OutputSink())
            var first = true
            var retry = false
            while !stop.requested {
                if try watcher.hasNewCommits() || first || retry {
                    let pass = try watcher.pass()
                    for effect in pass.views where effect.changedGroups > 0 {
                        logger.notice("\(TextFormatting.viewEffect(effect))")
                    }
                    if let receiver { retry = try deliverPending(store: store, to: receiver, logger: logger) }
                }
                first = false
                stop.wait(seconds: interval)
            }
            logger.notice("watch stopped; tokens saved")
            return .success
        }
    }
}

extension WatchCommand {
    /// Delivers each consumer's pending transactions (`--deliver`); true when one must be tried
    /// again (a temporary failure past the deadline, another deliver at work, a token moved).
    /// A refusal ends watch (exit 65).
    func deliverPending(store: Store, to receiver: any Receiver, logger: Logger) throws -> Bool {
        var retry = false
        for name in consumer {
            var loop = receiverOptions.loop(store: store, consumer: name, receiver: receiver, storeOptions: storeOptions, logger: logger)
            loop.lockWaitMilliseconds = 0
            do {
                let summary = try loop.run()
                if summary.delivered > 0 { logger.notice("\(summary.delivered) transaction\(summary.delivered == 1 ? "" : "s") delivered to consumer '\(name)'") }
            } catch let error where ExitStatus.forError(error) == .locked {
                logger.warning("\(RemedyWording.message(for: error)); trying again in \(interval) s")
                retry = true
            }
        }
        return retry
    }
}

/// SIGINT and SIGTERM as a flag and a wakeable wait, through Dispatch signal sources.
final class StopSignal: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let stopped = Mutex(false)
    /// Kept only so that the sources live as long as the signal.
    private let sources = Mutex<[any DispatchSourceSignal]>([])

    init() {
        sources.withLock { sources in
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { [weak self] in self?.stop() }
                source.resume()
                sources.append(source)
            }
        }
    }

    private func stop() {
        stopped.withLock { $0 = true }
        semaphore.signal()
    }

    var requested: Bool { stopped.withLock { $0 } }

    /// Sleeps up to `seconds`, returning early when a stop signal arrives.
    func wait(seconds: Double) {
        _ = semaphore.wait(timeout: .now() + seconds)
    }
}
