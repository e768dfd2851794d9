import Dispatch
import Foundation
import ImporterKit

/// SIGINT and SIGTERM for the commands that use a store.
///
/// The first signal raises `flag` (an import polls it between batches) and interrupts the SQL
/// statement running on the attached store, so the command's transaction rolls back and it exits
/// 130 (SIGINT) or 143 (SIGTERM) saying what was interrupted. A second signal, or the first when the
/// command has not stopped within `grace` (blocked reading its input, say), exits at once: the store
/// is safe either way, since SQLite never lets an uncommitted transaction reach it.
final class InterruptHandler: @unchecked Sendable {
    /// The handler of the running command, for `StoreOptions` to attach the store it opens.
    @TaskLocal static var current: InterruptHandler?

    let flag = CancellationFlag()
    private let grace: Double
    private let lock = NSLock()
    private var store: Store?
    private var sources: [DispatchSourceSignal] = []

    init(grace: Double = 3) {
        self.grace = grace
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.received(number) }
            source.resume()
            sources.append(source)
        }
    }

    deinit {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }

    /// The store whose running statement a signal interrupts.
    func attach(_ store: Store) {
        lock.lock()
        defer { lock.unlock() }
        self.store = store
    }

    private func received(_ number: Int32) {
        let status = 128 + number
        guard flag.raised == nil else {
            FileHandle.standardError.write(Data("importer: \(Self.name(number)) again: exiting at once (the store keeps its last committed state)\n".utf8))
            _exit(status)
        }
        flag.raise(number)
        FileHandle.standardError.write(Data("importer: \(Self.name(number)): stopping and rolling back (send it again to exit at once)\n".utf8))
        lock.lock()
        let store = self.store
        lock.unlock()
        store?.interrupt()
        DispatchQueue.global().asyncAfter(deadline: .now() + grace) {
            FileHandle.standardError.write(Data("importer: still busy \(self.grace) s after \(Self.name(number)): exiting (the store keeps its last committed state)\n".utf8))
            _exit(status)
        }
    }

    static func name(_ number: Int32) -> String {
        switch number {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        default: "signal \(number)"
        }
    }
}
