import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// A real HTTP(S) server on loopback for the tests of feeds from URLs: each request is answered
/// by the test's `respond` closure, which sees the request and how many came before it. Replies
/// can be cut short (the connection closed mid-body) or stall (headers and part of the body,
/// then silence).
public final class TestHTTPServer: Sendable {
    public struct Request: Sendable {
        public var index: Int
        public var method: String
        public var uri: String
        public var headers: [(String, String)]
        /// The request's body, whole.
        public var body: [UInt8] = []

        public func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    }

    public struct Reply: Sendable {
        public var status: Int
        public var headers: [(String, String)]
        public var body: [UInt8]
        /// Close the connection after this many body bytes (the declared length stays the whole).
        public var cutAfter: Int?
        /// Send this many body bytes, then nothing more.
        public var stallAfter: Int?
        /// An HTTP/1.0 answer with neither `Content-Length` nor chunked framing: the body ends where
        /// the connection closes (after `cutAfter` bytes, when set: a cut the client cannot see).
        public var unframed = false
        /// Send the body this many bytes at a time, one piece every `interval` seconds.
        public var trickle: Trickle?

        public struct Trickle: Sendable {
            public var bytes: Int
            public var interval: Double

            public init(bytes: Int, interval: Double) {
                self.bytes = bytes
                self.interval = interval
            }
        }

        public init(status: Int = 200, headers: [(String, String)] = [], body: [UInt8] = [], cutAfter: Int? = nil, stallAfter: Int? = nil,
                    unframed: Bool = false, trickle: Trickle? = nil) {
            self.status = status
            self.headers = headers
            self.body = body
            self.cutAfter = cutAfter
            self.stallAfter = stallAfter
            self.unframed = unframed
            self.trickle = trickle
        }

        public init(status: Int = 200, headers: [(String, String)] = [], text: String) {
            self.init(status: status, headers: headers, body: Array(text.utf8))
        }
    }

    /// The requests answered, in order.
    private final class Log: Sendable {
        let requests = Mutex<[Request]>([])
    }

    private let channel: any Channel
    private let log = Log()
    public let port: Int
    public let scheme: String

    /// Starts the server; `tls` makes it HTTPS with that certificate chain and key.
    public init(tls: TLSConfiguration? = nil, respond: @escaping @Sendable (Request) -> Reply) throws {
        let context = try tls.map(NIOSSLContext.init(configuration:))
        let log = self.log
        channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let context { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context)) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Responder { head, body in
                        let request = log.requests.withLock { requests in
                            let request = Request(index: requests.count, method: head.method.rawValue, uri: head.uri,
                                                  headers: head.headers.map { ($0.name, $0.value) }, body: body)
                            requests.append(request)
                            return request
                        }
                        return respond(request)
                    })
                }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        port = channel.localAddress?.port ?? 0
        scheme = tls == nil ? "http" : "https"
    }

    public func url(_ path: String = "/feed") -> URL {
        URL(string: "\(scheme)://127.0.0.1:\(port)\(path)")!
    }

    /// The requests answered so far.
    public var requests: [Request] { log.requests.withLock { $0 } }

    public func stop() {
        try? channel.close().wait()
    }
}

private final class Responder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let respond: (HTTPRequestHead, [UInt8]) -> TestHTTPServer.Reply
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(_ respond: @escaping (HTTPRequestHead, [UInt8]) -> TestHTTPServer.Reply) {
        self.respond = respond
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
        case .body(let buffer): body.append(contentsOf: buffer.readableBytesView)
        case .end:
            guard let head else { return }
            reply(respond(head, body), context: context)
        }
    }

    private func reply(_ reply: TestHTTPServer.Reply, context: ChannelHandlerContext) {
        var headers = HTTPHeaders(reply.headers)
        if reply.unframed {
            headers.remove(name: "content-length")
        } else if !headers.contains(name: "content-length") && !headers.contains(name: "transfer-encoding") {
            headers.add(name: "Content-Length", value: String(reply.body.count))
        }
        let status = HTTPResponseStatus(statusCode: reply.status)
        // HTTP/1.0 without a length: NIO's encoder then adds no chunked framing.
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: reply.unframed ? .http1_0 : .http1_1, status: status, headers: headers))),
                      promise: nil)
        let sent = min(reply.cutAfter ?? reply.stallAfter ?? reply.body.count, reply.body.count)
        let body = Array(reply.body.prefix(sent))
        if let trickle = reply.trickle {
            context.flush()
            send(body[...], trickle: trickle, then: reply, context: context)
            return
        }
        if sent > 0 { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil) }
        finish(reply, context: context)
    }

    /// Sends `rest` a piece at a time, then finishes the reply.
    private func send(_ rest: ArraySlice<UInt8>, trickle: TestHTTPServer.Reply.Trickle, then reply: TestHTTPServer.Reply, context: ChannelHandlerContext) {
        guard !rest.isEmpty, context.channel.isActive else {
            finish(reply, context: context)
            return
        }
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: rest.prefix(trickle.bytes))))), promise: nil)
        let next = rest.dropFirst(trickle.bytes)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: .milliseconds(Int64(trickle.interval * 1000))) {
            let (responder, context) = loopBound.value
            responder.send(next, trickle: trickle, then: reply, context: context)
        }
    }

    private func finish(_ reply: TestHTTPServer.Reply, context: ChannelHandlerContext) {
        if reply.cutAfter != nil || reply.unframed {
            context.flush()
            context.close(promise: nil)
        } else if reply.stallAfter != nil {
            context.flush()
        } else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
