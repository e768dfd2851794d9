import Foundation

/// Where the PostgreSQL server programs are: Debian's `postgresql` package installs them in
/// `/usr/lib/postgresql/<major>/bin`; the newest major version with an `initdb` is taken.
struct PostgresBinaries {
    static let root = "/usr/lib/postgresql"
    /// The `bin` directory.
    let directory: String

    /// The binaries, or nil when no installed version has an `initdb`.
    static func find() -> PostgresBinaries? {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        let newestFirst = versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
        return newestFirst.map { "\(root)/\($0)/bin" }
            .first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }
            .map(PostgresBinaries.init(directory:))
    }

    /// The path of the program `name` (`initdb`, `pg_ctl`, `psql`).
    func path(_ name: String) -> String { directory + "/" + name }
}
