import NIOHTTP1

/// How an answer's body was delimited on the wire, which says whether its end can be told from a
/// cut: a declared length or chunked encoding ends explicitly (a connection closed before that end
/// is an error), while a close-delimited body (HTTP/1.0 style: neither) ends wherever the
/// connection closes, so a body cut short looks whole.
public enum BodyFraming: String, Sendable, Equatable {
    case length
    case chunked
    case closeDelimited = "close-delimited"

    /// The framing the answer's headers declare.
    public init(_ headers: HTTPHeaders) {
        if headers[canonicalForm: "transfer-encoding"].contains(where: { $0.lowercased() == "chunked" }) {
            self = .chunked
        } else if headers.first(name: "content-length") != nil {
            self = .length
        } else {
            self = .closeDelimited
        }
    }

    /// Whether a cut body can be told from a whole one.
    public var isVerifiable: Bool { self != .closeDelimited }
}
