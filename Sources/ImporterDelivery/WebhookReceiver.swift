import AsyncHTTPClient
import Foundation
import ImporterFetch
import ImporterSupport
import NIOCore
import NIOHTTP1
import NIOSSL

/// Delivers each transaction as a POST to a URL with the Standard Webhooks headers: `webhook-id`
/// (the delivery id, the same on every attempt), `webhook-timestamp` (Unix seconds of the attempt)
/// and `webhook-signature` (`WebhookSignature`, signed again on every attempt). A 2xx answer is
/// received; 408, 429, 5xx, connection errors and timeouts are retried (`Retry-After` honoured);
/// any other answer (redirects are not followed) is a refusal quoting its first bytes.
///
/// Synchronous for the command, through `CallingThreadExecutor`; one client for all deliveries.
public final class WebhookReceiver: Receiver {
    public let url: URL
    let secret: WebhookSecret
    private let client: HTTPClient
    /// The proxy the requests go through (`host:port`), for the message of its refusal.
    private let proxy: String?
    /// For an `http://` URL with a proxy: the proxy, sent each request in absolute form.
    private let forward: ForwardProxyExchange?
    var shownURL: String { RedactedURL.text(url) }

    /// `caFile`: a PEM file of certificates trusted besides the system's; the proxy is the one
    /// `environment` names for the URL, as for URL feeds (`HTTPS_PROXY`, `NO_PROXY`…).
    public init(url: URL, secret: WebhookSecret, caFile: String? = nil, connectTimeout: FetchDuration = FetchDuration(milliseconds: 10_000),
                environment: [String: String] = ProcessInfo.processInfo.environment) throws(DeliveryError) {
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
            throw .receiver("\(RedactedURL.text(url)) is not an http(s) URL")
        }
        self.url = url
        self.secret = secret
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile { tls.additionalTrustRoots = [.file(caFile)] }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow,
                                                     timeout: .init(connect: .milliseconds(connectTimeout.milliseconds)))
        configuration.httpVersion = .http1Only
        // A failed connection (a proxy's refusal among them) comes back to be judged at once.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.proxy = ProxySettings(environment: environment).proxy(for: url)
        proxy = configuration.proxy.map { "\($0.host):\($0.port)" }
        var limits = FetchLimits()
        limits.connectTimeout = connectTimeout
        forward = scheme == "http" ? configuration.proxy.map { ForwardProxyExchange(proxy: $0, limits: limits) } : nil
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    public func deliver(_ delivery: Delivery, within seconds: Double) -> ReceiverOutcome {
        let timestamp = Int64(Date().timeIntervalSince1970)
        let signature: String
        do {
            signature = try WebhookSignature.sign(secret: secret, id: delivery.attempt.deliveryID, timestamp: timestamp, payload: delivery.payload)
        } catch {
            return .permanent("\(error)")
        }
        var request = HTTPClientRequest(url: URLCredentials.removed(from: url).absoluteString)
        request.method = .POST
        if let basic = URLCredentials.basicAuthorization(url) { request.headers.add(name: "Authorization", value: basic) }
        request.headers.add(name: "Content-Type", value: delivery.format.contentType)
        request.headers.add(name: "User-Agent", value: "importer")
        request.headers.add(name: "webhook-id", value: delivery.attempt.deliveryID)
        request.headers.add(name: "webhook-timestamp", value: String(timestamp))
        request.headers.add(name: "webhook-signature", value: signature)
        // Streamed from the payload's file, which `delivery` holds until `execute` returns.
        request.body = .stream(delivery.payload.chunks, length: .known(Int64(delivery.payload.byteCount)))
        let client = self.client
        let sent = request
        let shown = shownURL
        let proxy = proxy
        let forward = forward
        let (chunks, length) = (delivery.payload.chunks, delivery.payload.byteCount)
        let deadline = NIODeadline.now() + .milliseconds(Int64(max(seconds, 0.001) * 1000))
        do {
            // The deadline bounds the answer's body too (a receiver that sends its head and stalls).
            return try CallingThreadExecutor<ReceiverOutcome>().run {
                do {
                    return try await ExchangeDeadline.run(within: seconds) {
                        if let forward {
                            return try await forward.send(sent, body: chunks, length: length) { await Self.judge($0, url: shown) }
                        }
                        let response = try await client.execute(sent, deadline: deadline)
                        return await Self.judge(ReceivedAnswer(status: Int(response.status.code), headers: response.headers, body: .client(response.body)), url: shown)
                    }
                } catch is ExchangeDeadline.Passed {
                    return .temporary("\(shown): no whole answer within the deadline", retryAfter: nil)
                } catch {
                    return Self.judge(error, url: shown, proxy: proxy)
                }
            }
        } catch {
            return .temporary("\(shown): \(error)", retryAfter: nil)
        }
    }

    /// 2xx received (its body is not waited for); 408, 429, 5xx retried; anything else refused.
    static func judge(_ response: ReceivedAnswer, url: String) async -> ReceiverOutcome {
        let status = response.status
        if (200 ..< 300).contains(status) { return .delivered }
        if status == 407, let proxy = response.proxy { return .permanent("\(url): \(proxy) answered 407: it wants credentials") }
        let firstBytes = await Self.firstBytes(response)
        switch status {
        case 200 ..< 300:
            return .delivered
        case 408, 429, 500 ..< 600:
            let wait = RetryAfter.delay(response.headers.first(name: "retry-after"), now: Date())
            return .temporary("\(url) answered \(status)", retryAfter: wait)
        default:
            return .permanent("\(url) answered \(status)\(firstBytes.isEmpty ? "" : ": \(firstBytes)")")
        }
    }

    /// A failed request: TLS failures are refusals (retrying cannot mend them), the others retried.
    static func judge(_ error: any Error, url: String, proxy: String? = nil) -> ReceiverOutcome {
        if error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError {
            return .permanent("\(url): TLS failed: \(error)")
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .proxyAuthenticationRequired: return .permanent("\(url): the proxy \(proxy ?? "") answered 407: it wants credentials")
            case .invalidProxyResponse: return .permanent("\(url): the proxy \(proxy ?? "") refused to open a tunnel (CONNECT)")
            case .connectTimeout: return .temporary("\(url): the connection timed out", retryAfter: nil)
            case .deadlineExceeded, .readTimeout: return .temporary("\(url): no answer in time", retryAfter: nil)
            case .remoteConnectionClosed: return .temporary("\(url): the server closed the connection", retryAfter: nil)
            default: break
            }
        }
        return .temporary("\(url): \(error)", retryAfter: nil)
    }

    /// Up to 200 bytes of an answer, on one line, for the error message.
    static func firstBytes(_ response: ReceivedAnswer) async -> String {
        String(CommandReceiver.quote(await response.firstBytes(1 << 20).bytes).dropFirst(2))
    }

    public func close() {
        let client = self.client
        _ = try? CallingThreadExecutor<Bool>().run {
            try await client.shutdown()
            return true
        }
    }
}
