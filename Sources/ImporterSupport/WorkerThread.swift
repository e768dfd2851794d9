import Foundation
import Glibc

/// Starts work on a thread of its own, handing it what the work captures.
///
/// `body` is `sending`: the compiler checks that the caller keeps no way to reach what `body`
/// captures (a feed being read, runs to merge, a matcher and its connection), so the thread owns
/// it without locks and without an `@unchecked Sendable` wrapper. The thread is detached: whoever
/// needs its result waits for it through what `body` posts (a `Monitor`).
package enum WorkerThread {
    /// The body, boxed for the thread's start routine.
    private final class Body {
        let name: String
        let run: () -> Void
        init(_ name: String, _ run: @escaping () -> Void) {
            self.name = name
            self.run = run
        }
    }

    /// No thread could be started (the system's limits): nothing ran.
    package struct NotStarted: Error, CustomStringConvertible {
        package let name: String
        package let code: Int32
        package var description: String { "cannot start the \(name) thread: \(String(cString: strerror(code)))" }
    }

    /// Starts `body` on a new thread named `name` (its first 15 bytes show in `top`) with a stack of
    /// `stackSize` bytes.
    package static func start(named name: String, stackSize: Int = 8 << 20, _ body: sending @escaping () -> Void) throws(NotStarted) {
        let box = Unmanaged.passRetained(Body(name, body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let created = pthread_create(&thread, &attributes, { context in
            guard let context else { return nil }
            let body = Unmanaged<Body>.fromOpaque(context).takeRetainedValue()
            Thread.current.name = body.name
            body.run()
            return nil
        }, box)
        guard created == 0 else {
            Unmanaged<Body>.fromOpaque(box).release()
            throw NotStarted(name: name, code: created)
        }
    }
}
