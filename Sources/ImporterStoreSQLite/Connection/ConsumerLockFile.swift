import Foundation
import Glibc
import ImporterStore
import Synchronization

/// The descriptors of the consumer lock files this process holds, by file path (one `flock` per
/// file and process: a second take of a held lock in this process is refused like another's).
private let heldConsumerLocks = Mutex<[String: Int32]>([:])

/// A consumer's delivery lock on an SQLite store: `flock` on a small file beside the store
/// (`STORE-deliver-NAME`), so that the kernel releases it when the process ends, however it ends.
/// Opened close-on-exec: a receiver the delivery starts never inherits it.
extension SQLiteStore: ConsumerLocking {
    static func consumerLockPath(store: String, consumer: String) -> String { store + "-deliver-" + consumer }

    package func tryLockConsumer(_ name: String) throws(StoreError) -> Bool {
        let file = Self.consumerLockPath(store: path, consumer: name)
        let result: Result<Bool, StoreError> = heldConsumerLocks.withLock { held in
            if held[file] != nil { return .success(false) }
            let descriptor = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                let reason = String(cString: strerror(errno))
                return .failure(errno == EACCES || errno == EROFS ? .permissionDenied(path: file, reason: reason) : .io(path: file, reason: reason))
            }
            while true {
                if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
                    held[file] = descriptor
                    return .success(true)
                }
                if errno == EINTR { continue }
                let failure = errno
                close(descriptor)
                if failure == EWOULDBLOCK { return .success(false) }
                return .failure(.io(path: file, reason: String(cString: strerror(failure))))
            }
        }
        return try result.get()
    }

    package func unlockConsumer(_ name: String) {
        let file = Self.consumerLockPath(store: path, consumer: name)
        heldConsumerLocks.withLock { held in
            guard let descriptor = held.removeValue(forKey: file) else { return }
            flock(descriptor, LOCK_UN)
            close(descriptor)
        }
    }
}
