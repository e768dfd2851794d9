import Foundation
import Glibc

/// Unlinked temporary files: open for reading and writing, close-on-exec, gone once closed.
enum AnonymousFile {
    /// A new one in the temporary directory, named `prefix-XXXXXX` until it is unlinked.
    static func create(prefix: String) throws(DeliveryError) -> Int32 {
        let directory = FileManager.default.temporaryDirectory.path
        var template = Array((directory as NSString).appendingPathComponent("\(prefix)-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard descriptor >= 0 else { throw .payload("cannot create a temporary file in \(directory): \(String(cString: strerror(errno)))") }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { buffer in _ = buffer.baseAddress.map { unlink($0) } }
        return descriptor
    }
}
