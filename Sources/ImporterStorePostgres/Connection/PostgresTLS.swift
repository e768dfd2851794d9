import Foundation
import ImporterStore
import NIOSSL
import PostgresNIO

/// TLS for a connection to a PostgreSQL store, the way libpq's `sslmode` says: `disable` never;
/// `prefer` when the server offers it and `require` always, neither checking the certificate
/// (`require` does check the CA when a root certificate file is given or found, as libpq does);
/// `verify-ca` checking that a trusted CA signed the server's certificate, `verify-full` also that
/// the certificate names the host connected to (a DNS name or an IP address).
///
/// Invariant: a verifying mode never talks to a server whose certificate failed the check, and
/// such a failure is told as one (`failureReason`), with the CAs it was checked against.
enum PostgresTLS {
    /// The TLS setting of a connection to `location` (TCP only; a socket needs none).
    static func mode(for location: PostgresLocation) throws(StoreError) -> PostgresConnection.Configuration.TLS {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch location.sslMode {
        case .disable: return .disable
        case .prefer: tls.certificateVerification = .none
        case .require, .verifyCA: tls.certificateVerification = location.verifiesCertificate ? .noHostnameVerification : .none
        case .verifyFull: tls.certificateVerification = .fullVerification
        }
        if location.verifiesCertificate, let file = location.sslRootCert {
            tls.trustRoots = .certificates(try certificates(in: file, for: location))
        }
        do {
            let context = try NIOSSLContext(configuration: tls)
            return location.sslMode == .prefer ? .prefer(context) : .require(context)
        } catch {
            throw StoreError.unavailable(location: location.description, reason: "cannot set up TLS: \(error)")
        }
    }

    /// The CA certificates in the PEM file `path`, or an error naming the file.
    private static func certificates(in path: String, for location: PostgresLocation) throws(StoreError) -> [NIOSSLCertificate] {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw StoreError.unavailable(location: location.description, reason: "the root certificate file \(path) (sslrootcert) cannot be read")
        }
        let certificates = try? NIOSSLCertificate.fromPEMFile(path)
        guard let certificates, !certificates.isEmpty else {
            throw StoreError.unavailable(location: location.description, reason: "the root certificate file \(path) (sslrootcert) holds no PEM certificate")
        }
        return certificates
    }

    /// The reason a connection failed in TLS, in the user's words, or nil when `error` is not a
    /// TLS failure.
    static func failureReason(_ error: any Error, location: PostgresLocation) -> String? {
        let cause = innermost(error)
        let trusted = location.sslRootCert.map { "the CAs in \($0)" } ?? "the system's CAs"
        if let psql = cause as? PSQLError, psql.code == .sslUnsupported {
            return "the server does not accept TLS connections (sslmode=\(location.sslMode.rawValue))"
        }
        if let extra = cause as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return "TLS: the server's certificate could not be verified: it does not name the host \(location.host) (sslmode=verify-full)"
        }
        if case .handshakeFailed(let failure)? = cause as? NIOSSLError {
            if "\(failure)".contains("CERTIFICATE_VERIFY_FAILED") {
                return "TLS: the server's certificate could not be verified against \(trusted)"
                    + " (give the CA that signed it with sslrootcert=FILE or $PGSSLROOTCERT)"
            }
            return "TLS handshake failed: \(failure)"
        }
        return nil
    }

    /// The error under the wrappers postgres-nio puts around it.
    private static func innermost(_ error: any Error) -> any Error {
        var current = error
        while let psql = current as? PSQLError, let underlying = psql.underlying {
            current = underlying
        }
        return current
    }
}
