import Foundation
import ImporterStore

/// Where a PostgreSQL store lives, parsed from `postgres://user[:password]@host[:port]/database`
/// (or `postgresql://`), with the query parameters `schema` (default `public`), `sslmode`
/// (`disable`, `prefer` (default), `require`, `verify-ca`, `verify-full`; else `$PGSSLMODE`),
/// `sslrootcert` and `host` (a socket directory).
///
/// Invariant: `description` never contains the password; the password comes from the URL, else
/// `$PGPASSWORD`, else `~/.pgpass`, and the trusted CAs from `sslrootcert`, else
/// `$PGSSLROOTCERT`, else `~/.postgresql/root.crt`, the way libpq finds them.
package struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    package enum SSLMode: String, Sendable {
        case disable, prefer, require, verifyCA = "verify-ca", verifyFull = "verify-full"

        /// Whether the server's certificate must chain to a trusted CA, whatever the CA file.
        var verifiesCertificate: Bool { self == .verifyCA || self == .verifyFull }
    }

    /// Whether the server's certificate must chain to a trusted CA: `verify-ca` and `verify-full`,
    /// and `require` when a root certificate file is given or found (libpq's rule, kept for
    /// compatibility: such a `require` acts as `verify-ca`).
    var verifiesCertificate: Bool { sslMode.verifiesCertificate || (sslMode == .require && sslRootCert != nil) }

    package var host: String
    package var port: Int
    package var user: String
    package var password: String?
    package var database: String
    package var schema: String
    package var sslMode: SSLMode
    /// The PEM file of the CAs that verify the server's certificate; nil trusts the system's CAs
    /// (`sslrootcert=system`, or no file given and no `~/.postgresql/root.crt`).
    package var sslRootCert: String?

    /// Whether `text` names a PostgreSQL store rather than an SQLite file.
    package static func isPostgres(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    /// Parses `text`; `schema` (from `--pg-schema`) overrides the URL's.
    package init(parsing text: String, schema: String? = nil,
                environment: [String: String] = ProcessInfo.processInfo.environment) throws(StoreError) {
        guard Self.isPostgres(text), let components = URLComponents(string: text) else {
            throw StoreError.invalidLocation(location: Self.redacted(text), reason: "not a postgres://user@host:port/database URL")
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        host = query["host"] ?? components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
        port = components.port ?? 5432
        user = components.user.flatMap { $0.removingPercentEncoding } ?? environment["PGUSER"] ?? environment["USER"] ?? "postgres"
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.removingPercentEncoding.flatMap { $0.isEmpty ? nil : $0 } ?? user
        self.schema = schema ?? query["schema"] ?? "public"
        let fromEnvironment = query["sslmode"] == nil ? environment["PGSSLMODE"].flatMap { $0.isEmpty ? nil : $0 } : nil
        guard let mode = SSLMode(rawValue: query["sslmode"] ?? fromEnvironment ?? "prefer") else {
            let name = fromEnvironment == nil ? "sslmode" : "$PGSSLMODE"
            throw StoreError.invalidLocation(location: Self.redacted(text), reason: "\(name) must be disable, prefer, require, verify-ca or verify-full")
        }
        sslMode = mode
        sslRootCert = Self.rootCertificate(query["sslrootcert"], environment: environment)
        password = components.password?.removingPercentEncoding
        if password == nil { password = environment["PGPASSWORD"].flatMap { $0.isEmpty ? nil : $0 } }
        if password == nil {
            let file = environment["PGPASSFILE"] ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.pgpass")
            password = PostgresPassFile.password(in: file, host: host, port: port, database: database, user: user)
        }
        if let problem = Self.schemaProblem(self.schema) {
            throw StoreError.invalidLocation(location: Self.redacted(text), reason: problem)
        }
    }

    /// The store as named in messages: no password.
    package var description: String {
        "postgres://\(user)@\(host):\(port)/\(database)" + (schema == "public" ? "" : "?schema=\(schema)")
    }

    /// The CA file libpq would use: `sslrootcert`, else `$PGSSLROOTCERT`, else
    /// `~/.postgresql/root.crt` when it exists; `system` (or none) means the system's CAs.
    static func rootCertificate(_ parameter: String?, environment: [String: String]) -> String? {
        let given = parameter ?? environment["PGSSLROOTCERT"].flatMap { $0.isEmpty ? nil : $0 }
        if let given { return given == "system" ? nil : given }
        let home = environment["HOME"] ?? NSHomeDirectory()
        let file = URL(fileURLWithPath: home).appendingPathComponent(".postgresql/root.crt").path
        return FileManager.default.fileExists(atPath: file) ? file : nil
    }

    /// Whether `host` is a socket directory rather than a host name.
    var isSocketDirectory: Bool { host.hasPrefix("/") }

    /// The socket path for a socket-directory host (`<dir>/.s.PGSQL.<port>`).
    var socketPath: String { host + "/.s.PGSQL.\(port)" }

    /// A URL with its password removed, for errors about the URL itself.
    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text) else { return "the PostgreSQL URL" }
        components.password = nil
        components.query = nil
        return components.string ?? "the PostgreSQL URL"
    }

    /// Schema names follow the model's identifier rules (they are quoted anyway).
    private static func schemaProblem(_ schema: String) -> String? {
        let valid = !schema.isEmpty && schema.utf8.count <= 63
            && schema.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && CharacterSet.alphanumerics.contains($0)) }
            && !(schema.first?.isNumber ?? false)
        return valid ? nil : "'\(schema)' is not a valid schema name (letters, digits and _)"
    }
}

/// `~/.pgpass`: lines of `host:port:database:user:password`, `*` matching anything, `\:` and `\\`
/// escaped; the first matching line wins.
enum PostgresPassFile {
    static func password(in file: String, host: String, port: Int, database: String, user: String) -> String? {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        let wanted = [host, String(port), database, user]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = split(String(line))
            guard fields.count == 5 else { continue }
            let matches = zip(fields.prefix(4), wanted).allSatisfy { field, value in
                field == "*" || field == value || (field == "localhost" && value.hasPrefix("/"))
            }
            if matches { return fields[4] }
        }
        return nil
    }

    /// Splits one line at unescaped colons.
    private static func split(_ line: String) -> [String] {
        var fields = [""]
        var escaped = false
        for character in line {
            if escaped {
                fields[fields.count - 1].append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" {
                fields.append("")
            } else {
                fields[fields.count - 1].append(character)
            }
        }
        return fields
    }
}
