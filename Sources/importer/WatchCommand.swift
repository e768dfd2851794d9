import ArgumentParser
import Dispatch
import Foundation
import ImporterKit
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

            Examples:
              importer watch
              importer watch --consumer mailer --interval 2 | ./notify
            """
    )

    @OptionGroup(title: "Store and logging options") var storeOptions: StoreOptions

    @Option(name: .long, help: ArgumentHelp("An external consumer whose changes to print (repeatable).", valueName: "name"), completion: .custom(StoreNames.externalConsumers))
    var consumer: [String] = []

    @Option(name: .long, help: ArgumentHelp("Seconds between checks for new history.", valueName: "seconds"))
    var interval: Double = 1

    func validate() throws {
        guard interval >= 0.05, interval <= 3600 else { throw ValidationError("--interval must be between 0.05 and 3600 seconds") }
    }

    func run() throws {
        try runReportingErrors(storeOptions.logging, interruptible: false) {
            let store = try storeOptions.open(create: false)
            let registry = ConsumerRegistry(store: store)
            for name in consumer where try registry.consumer(named: name).kind != .external {
                throw ValidationError("'\(name)' is a view; watch replays every view anyway")
            }
            let logger = storeOptions.logging.makeLogger()
            let stop = StopSignal()
            let watcher = HistoryWatcher(store: store, consumers: consumer, output: OutputSink())
            var first = true
            while !stop.requested {
                if try watcher.hasNewCommits() || first {
                    let pass = try watcher.pass()
                    for effect in pass.views where effect.changedGroups > 0 {
                        logger.notice("\(TextFormatting.viewEffect(effect))")
                    }
                }
                first = false
                stop.wait(seconds: interval)
            }
            logger.notice("watch stopped; tokens saved")
            return .success
        }
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
