import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix

/// An `http://` request through an HTTP proxy as curl sends it: the request line in absolute form
/// (`GET http://host/path HTTP/1.1`) on a connection of its own to the proxy, closed after the
/// answer. async-http-client opens a CONNECT tunnel for every proxied request, which proxies
/// commonly allow to port 443 only; `https://` URLs keep going that way.
///
/// The answer is handed to `handle` while the connection is open: its body streams with the
/// connection's back-pressure and ends with it, decompressed and bounded as async-http-client's.
package struct ForwardProxyExchange {
    let proxy: HTTPClient.Configuration.Proxy
    let connectTimeout: FetchDuration
    let idleTimeout: FetchDuration
    let maxDecompressionRatio: Int

    package init(proxy: HTTPClient.Configuration.Proxy, limits: FetchLimits) {
        self.proxy = proxy
        connectTimeout = limits.connectTimeout
        idleTimeout = limits.idleTimeout
        maxDecompressionRatio = limits.maxDecompressionRatio
    }

    /// A stall of the answer longer than the idle timeout.
    struct Idle: Error, CustomStringConvertible {
        var description: String { "the server stopped sending" }
    }

    /// The proxy closed the connection without an answer head.
    struct NoAnswer: Error, CustomStringConvertible {
        var description: String { "the proxy closed the connection without answering" }
    }

    package var name: String { "the proxy \(proxy.host):\(proxy.port)" }

    /// Sends `request` (its URL in absolute form, no body) and hands the answer to `handle`.
    func send<T>(_ request: HTTPClientRequest, _ handle: (ReceivedAnswer) async throws -> T) async throws -> T {
        try await send(request, body: EmptyBody(), length: 0, handle)
    }

    /// Sends `request` with `body` (`length` bytes) and hands the answer to `handle`.
    package func send<T, Bytes: AsyncSequence>(_ request: HTTPClientRequest, body: Bytes, length: Int,
                                               _ handle: (ReceivedAnswer) async throws -> T) async throws -> T where Bytes.Element == ByteBuffer {
        guard let url = URL(string: request.url), let host = url.host else { throw HTTPClientError.invalidURL }
        let channel = try await connect()
        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: request.method, uri: url.absoluteString)
            head.headers.add(name: "Host", value: url.port.map { "\(host):\($0)" } ?? host)
            head.headers.add(contentsOf: request.headers)
            head.headers.add(name: "Accept-Encoding", value: "gzip, deflate")
            head.headers.add(name: "Connection", value: "close")
            if length > 0 { head.headers.replaceOrAdd(name: "Content-Length", value: String(length)) }
            if let authorization = proxy.authorization { head.headers.add(name: "Proxy-Authorization", value: authorization.headerValue) }
            try await outbound.write(.head(head))
            for try await buffer in body { try await outbound.write(.body(.byteBuffer(buffer))) }
            try await outbound.write(.end(nil))
            var parts = inbound.makeAsyncIterator()
            while let part = try await parts.next() {
                // An interim (1xx) head is followed by the real one.
                guard case .head(let answer) = part, answer.status.code >= 200 else { continue }
                return try await handle(ReceivedAnswer(status: Int(answer.status.code), headers: answer.headers,
                                                       body: .forwarded(Body(parts: parts)), proxy: name))
            }
            throw NoAnswer()
        }
    }

    /// No bytes.
    private struct EmptyBody: AsyncSequence, AsyncIteratorProtocol {
        typealias Element = ByteBuffer
        func makeAsyncIterator() -> EmptyBody { self }
        mutating func next() async -> ByteBuffer? { nil }
    }

    private func connect() async throws -> NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart> {
        let idle = TimeAmount.milliseconds(idleTimeout.milliseconds)
        let ratio = maxDecompressionRatio
        return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.milliseconds(connectTimeout.milliseconds))
            .connect(host: proxy.host, port: proxy.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(IdleStateHandler(readTimeout: idle))
                    try pipeline.addHandler(IdleCloser())
                    try pipeline.addHTTPClientHandlers()
                    try pipeline.addHandler(NIOHTTPResponseDecompressor(limit: .ratio(ratio)))
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
    }

    /// The body of an answer: the body parts up to its end. A connection closed before the end
    /// its framing declares is an error (the HTTP decoder's), as with async-http-client.
    package struct Body: AsyncSequence {
        package typealias AsyncIterator = Iterator
        package typealias Element = ByteBuffer
        let parts: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator

        package func makeAsyncIterator() -> Iterator { Iterator(parts: parts) }

        package struct Iterator: AsyncIteratorProtocol {
            var parts: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator

            package mutating func next() async throws -> ByteBuffer? {
                while let part = try await parts.next() {
                    switch part {
                    case .body(let buffer): return buffer
                    case .end: return nil
                    case .head: continue
                    }
                }
                return nil
            }
        }
    }

    /// Turns a read stall past the idle timeout into an error that closes the connection.
    private final class IdleCloser: ChannelInboundHandler, Sendable {
        typealias InboundIn = NIOAny

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let event = event as? IdleStateHandler.IdleStateEvent, event == .read {
                context.fireErrorCaught(Idle())
                context.close(promise: nil)
            } else {
                context.fireUserInboundEventTriggered(event)
            }
        }
    }
}
