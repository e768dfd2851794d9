import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// An answer's head and its body still to be read, whichever way it came (async-http-client, or
/// a proxy forwarding an `http://` request).
package struct ReceivedAnswer {
    package var status: Int
    package var headers: HTTPHeaders
    package var body: Body
    /// The proxy that forwarded the request (`the proxy HOST:PORT`), for messages.
    package var proxy: String?

    package init(status: Int, headers: HTTPHeaders, body: Body, proxy: String? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.proxy = proxy
    }

    /// The body's bytes as they arrive.
    package enum Body: AsyncSequence {
        package typealias Element = ByteBuffer
        case client(HTTPClientResponse.Body)
        case forwarded(ForwardProxyExchange.Body)

        package func makeAsyncIterator() -> Iterator {
            switch self {
            case .client(let body): Iterator.client(body.makeAsyncIterator())
            case .forwarded(let body): Iterator.forwarded(body.makeAsyncIterator())
            }
        }

        package enum Iterator: AsyncIteratorProtocol {
            case client(HTTPClientResponse.Body.AsyncIterator)
            case forwarded(ForwardProxyExchange.Body.Iterator)

            package mutating func next() async throws -> ByteBuffer? {
                switch self {
                case .client(var iterator):
                    let buffer = try await iterator.next()
                    self = .client(iterator)
                    return buffer
                case .forwarded(var iterator):
                    let buffer = try await iterator.next()
                    self = .forwarded(iterator)
                    return buffer
                }
            }
        }
    }

    /// Up to `limit` bytes of the body, and whether it had more (nothing when reading fails).
    package func firstBytes(_ limit: Int) async -> (bytes: [UInt8], more: Bool) {
        var bytes: [UInt8] = []
        do {
            for try await buffer in body {
                bytes += buffer.readableBytesView
                if bytes.count > limit { break }
            }
        } catch {
            return ([], false)
        }
        return (Array(bytes.prefix(limit)), bytes.count > limit)
    }
}
