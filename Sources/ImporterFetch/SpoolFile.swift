import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The temporary file a body is kept in while it arrives and while the run reads it:
/// `importer-fetch-<pid>-<uuid>.body` in the spool directory. The run removes it however it ends;
/// one a process killed outright left behind (kill -9, a second signal) names a process that no
/// longer runs, and the next fetch into the same directory removes it (`sweep`).
enum SpoolFile {
    static let prefix = "importer-fetch-"
    static let suffix = ".body"

    /// A new file's path in `directory`, named after this process.
    static func path(in directory: String) -> String {
        (directory as NSString).appendingPathComponent("\(prefix)\(getpid())-\(UUID().uuidString)\(suffix)")
    }

    /// Removes the bodies in `directory` left by processes that have ended (and those of the
    /// older name, `importer-fetch-<uuid>.body`, which named none).
    static func sweep(_ directory: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(suffix) {
            let middle = name.dropFirst(prefix.count).dropLast(suffix.count)
            let owner = middle.split(separator: "-", maxSplits: 1).first.flatMap { Int32($0) }
            if let owner, middle.contains("-"), owner > 0, kill(owner, 0) == 0 || errno == EPERM { continue }
            try? FileManager.default.removeItem(atPath: (directory as NSString).appendingPathComponent(name))
        }
    }
}
