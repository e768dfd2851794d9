import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOSSL

extension HTTPFetcher {
    /// Judges an answer: 304 is not modified; 2xx is kept (or is not modified when its hash is
    /// the last import's); 408, 429 and 5xx are retried; any other status is a refusal.
    func answer(_ response: ReceivedAnswer, attempts: Int) async throws(FetchError) -> Attempt {
        let status = response.status
        let validators = SourceValidators(etag: response.headers.first(name: "etag") ?? request.validators?.etag,
                                          lastModified: response.headers.first(name: "last-modified") ?? request.validators?.lastModified,
                                          sha256: request.validators?.sha256)
        switch status {
        case 304:
            return .done(.notModified(SourceFetch(url: shownURL, status: status, validators: validators, bytes: 0, attempts: attempts)))
        case 200 ..< 300:
            let contentType = response.headers.first(name: "content-type")
            if ContentTypeCheck.contradicts(contentType, format: request.format) {
                throw .notTheFeed(url: shownURL, contentType: contentType ?? "", firstBytes: await Self.firstBytes(response))
            }
            let next = LinkHeader.next(response.headers["link"], base: request.url)
            let answer = Answer(status: status, validators: validators, contentType: contentType, next: next, framing: BodyFraming(response.headers),
                                declaredLength: response.headers.first(name: "content-encoding") == nil
                                    ? response.headers.first(name: "content-length").flatMap { Int64($0) } : nil)
            return try await keep(response.body, answer, attempts: attempts)
        case 408, 429, 500 ..< 600:
            let wait = RetryAfter.delay(response.headers.first(name: "retry-after"), now: Date())
            return .retry("HTTP \(status)", retryAfter: wait)
        case 407 where response.proxy != nil:
            throw .transport(url: shownURL, reason: "\(response.proxy ?? "the proxy") answered 407: it wants credentials (give them in the proxy's URL, http://user:pass@host:port)")
        default:
            throw .refused(url: shownURL + (response.proxy.map { " (through \($0))" } ?? ""), status: status, firstBytes: await Self.firstBytes(response))
        }
    }

    /// What a 2xx answer's head said.
    struct Answer {
        var status: Int
        var validators: SourceValidators
        var contentType: String?
        var next: URL?
        var framing: BodyFraming
        /// The `Content-Length` of an uncompressed body, which the bytes received must match.
        var declaredLength: Int64?
    }

    /// Streams the body into a temporary file, hashing it; the file is removed unless the body
    /// arrived whole and differs from the last import's. A body cut short is retried.
    private func keep(_ body: ReceivedAnswer.Body, _ answer: Answer, attempts: Int) async throws(FetchError) -> Attempt {
        let (status, validators, contentType, next) = (answer.status, answer.validators, answer.contentType, answer.next)
        let path = SpoolFile.path(in: spoolDirectory)
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw .spool("cannot create \(path)")
        }
        var hasher = SHA256()
        var bytes: Int64 = 0
        do {
            defer { try? handle.close() }
            for try await buffer in body {
                bytes += Int64(buffer.readableBytes)
                guard bytes <= request.limits.maxBytes else {
                    throw FetchError.tooLarge(url: shownURL, reason: "the body is larger than \(request.limits.maxBytes) bytes")
                }
                buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                try handle.write(contentsOf: Data(buffer.readableBytesView))
            }
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            if let error = error as? FetchError { throw error }
            if Self.isDecompressionLimit(error) {
                throw .tooLarge(url: shownURL, reason: "the body expands more than \(request.limits.maxDecompressionRatio) times")
            }
            return .retry("the body was cut short after \(bytes) bytes (\(Self.describe(error)))", retryAfter: nil)
        }
        if let declared = answer.declaredLength, declared != bytes {
            try? FileManager.default.removeItem(atPath: path)
            return .retry("the body has \(bytes) bytes where its Content-Length says \(declared)", retryAfter: nil)
        }
        var kept = validators
        kept.sha256 = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        let fetch = SourceFetch(url: shownURL, status: status, validators: kept, bytes: bytes, attempts: attempts)
        if let last = request.validators?.sha256, last == kept.sha256 {
            try? FileManager.default.removeItem(atPath: path)
            return .done(.notModified(fetch))
        }
        return .done(.body(FetchedBody(file: path, fetch: fetch, contentType: contentType, nextLink: next, framing: answer.framing)))
    }

    /// Up to 200 bytes of a refused answer, on one line, for the error message.
    static func firstBytes(_ response: ReceivedAnswer) async -> String {
        let (bytes, more) = await response.firstBytes(200)
        let text = String(decoding: bytes, as: UTF8.self)
        let line = text.map { $0.isNewline || $0 == "\t" ? " " : $0 }.filter { !$0.isASCII || $0.asciiValue.map { $0 >= 32 } == true }
        return String(line).trimmingCharacters(in: .whitespaces) + (more ? "…" : "")
    }

    static func isDecompressionLimit(_ error: any Error) -> Bool {
        if let error = error as? NIOHTTPDecompression.DecompressionError, case .limit = error { return true }
        return false
    }

    /// A transport failure that retrying cannot mend (TLS: an untrusted or mismatched certificate).
    static func permanentTransportFailure(_ error: any Error) -> String? {
        if error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError {
            return "TLS failed: \(describe(error)) (a certificate the system does not trust? give --cacert FILE)"
        }
        return nil
    }

    /// A proxy's refusal of the tunnel, which retrying cannot mend: the proxy named.
    func proxyRefusal(_ error: any Error) -> String? {
        guard let error = error as? HTTPClientError, let proxy = ProxySettings(environment: environment).proxy(for: request.url) else { return nil }
        let name = "the proxy \(proxy.host):\(proxy.port)"
        switch error {
        case .proxyAuthenticationRequired: return "\(name) answered 407: it wants credentials (give them in the proxy's URL, http://user:pass@host:port)"
        case .invalidProxyResponse: return "\(name) refused to open a tunnel (CONNECT) to \(request.url.host ?? "the host"):\(request.url.port ?? (request.url.scheme == "https" ? 443 : 80))"
        default: return nil
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return "the connection timed out"
            case .readTimeout: return "the server stopped sending"
            case .deadlineExceeded: return "the deadline passed"
            case .remoteConnectionClosed: return "the server closed the connection"
            default: return "\(error)"
            }
        }
        return "\(error)"
    }

    /// The client for this fetch: redirects by hand, the timeouts and decompression limit of
    /// `limits`, the system CA store plus `caFile`, a proxy from the environment.
    func makeClient() throws(FetchError) -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile = request.limits.caFile {
            guard FileManager.default.isReadableFile(atPath: caFile) else { throw .transport(url: shownURL, reason: "cannot read the CA file \(caFile)") }
            tls.additionalTrustRoots = [.file(caFile)]
        }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow,
            timeout: .init(connect: .milliseconds(request.limits.connectTimeout.milliseconds), read: .milliseconds(request.limits.idleTimeout.milliseconds)),
            proxy: ProxySettings(environment: environment).proxy(for: request.url),
            decompression: .enabled(limit: .ratio(request.limits.maxDecompressionRatio)))
        configuration.httpVersion = .http1Only
        // A failed connection (a proxy's refusal among them) comes back to `retrying`, which knows
        // what is permanent, instead of being tried again inside the pool until the deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
