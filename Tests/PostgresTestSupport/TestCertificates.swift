import Foundation

/// The certificates of a TLS test cluster, made with `openssl` in a directory of the test's: a CA
/// of its own, a server certificate it signed naming 127.0.0.1 and localhost (and nothing else),
/// and a second CA that signed nothing, for a client that trusts the wrong CA.
public struct TestCertificates: Sendable {
    /// The PEM file of the CA that signed the server's certificate (a client's `sslrootcert`).
    public let authority: String
    /// The PEM file of a CA that did not sign it.
    public let otherAuthority: String
    /// The server's certificate (for 127.0.0.1 and localhost) and its key, PEM files.
    public let serverCertificate: String
    public let serverKey: String

    /// Makes the certificates in `directory` (created); EC P-256 keys, valid for a week.
    public init(in directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func file(_ name: String) -> String { directory.appendingPathComponent(name).path }
        authority = file("ca.crt")
        otherAuthority = file("other-ca.crt")
        serverCertificate = file("server.crt")
        serverKey = file("server.key")
        try Self.makeAuthority(name: "importer test CA", certificate: authority, key: file("ca.key"))
        try Self.makeAuthority(name: "importer untrusted CA", certificate: otherAuthority, key: file("other-ca.key"))
        try Self.openssl(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                          "-keyout", serverKey, "-out", file("server.csr"), "-subj", "/CN=localhost"])
        let extensions = "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
        try extensions.write(toFile: file("server.ext"), atomically: true, encoding: .utf8)
        try Self.openssl(["x509", "-req", "-in", file("server.csr"), "-CA", authority, "-CAkey", file("ca.key"),
                          "-CAcreateserial", "-days", "7", "-extfile", file("server.ext"), "-out", serverCertificate])
        // The server refuses a key others can read.
        guard chmod(serverKey, 0o600) == 0 else { throw PostgresTestCluster.ClusterError(message: "cannot chmod \(serverKey)") }
    }

    /// The server settings that turn TLS on with these certificates.
    var serverOptions: String {
        "-c ssl=on -c ssl_cert_file=\(serverCertificate) -c ssl_key_file=\(serverKey)"
    }

    private static func makeAuthority(name: String, certificate: String, key: String) throws {
        try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                     "-keyout", key, "-out", certificate, "-days", "7", "-subj", "/CN=\(name)",
                     "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
    }

    private static func openssl(_ arguments: [String]) throws {
        try PostgresTestCluster.run("/usr/bin/openssl", arguments)
    }
}
