import CLibXML2
import Foundation

/// What libxml2's callbacks for one reader share with it: the byte source behind the prolog guard,
/// and the first error either of them met. Passed to C as an unretained pointer; the reader owns it.
final class XMLInput {
    /// An error libxml2 reported, as it reported it.
    struct ParserError: Sendable {
        var code: Int32
        var domain: Int32
        var message: String
        var line: Int
        var column: Int
        /// The parser's state at the error: after the root element (epilog), or the innermost open
        /// element (nil when none is open).
        var afterRoot = false
        var openElement: String?
    }

    let source: ByteSource
    /// The most bytes handed to libxml2 per read callback.
    let readSize: Int
    private(set) var prolog = XMLPrologGuard()
    private(set) var readError: FeedError?
    private(set) var parserError: ParserError?
    /// Any of the above: checked after every node, so it must be cheap (no exclusivity check: only
    /// the reader's thread touches it, inside or between libxml2 calls).
    @exclusivity(unchecked) private(set) var failed = false
    /// Nothing more is read once the guard refused or the source failed.
    private var stopped = false

    init(source: ByteSource, readSize: Int, guardingProlog: Bool = true) {
        self.source = source
        self.readSize = max(1, readSize)
        if !guardingProlog { prolog.stopWatching() }
    }

    /// libxml2's read callback: fills `buffer` from the source, through the prolog guard while it
    /// watches. Returns the byte count, 0 at the end (also after a failure: a -1 would make libxml2
    /// print an I/O error on its global channel; the reader reports the failure itself).
    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int32 {
        guard !stopped, capacity > 0 else { return 0 }
        let raw = UnsafeMutableRawPointer(buffer)
        let limit = min(capacity, readSize)
        var count = 0
        do throws(FeedError) {
            if prolog.isDone { return Int32(try source.read(into: raw, count: limit)) }
            // The guard tells the encoding from the first four bytes: have them in the first chunk.
            let wanted = source.bytesRead < 4 ? min(capacity, max(limit, 4)) : limit
            repeat {
                let n = try source.read(into: raw + count, count: wanted - count)
                if n == 0 { break }
                count += n
            } while count < min(wanted, 4)
        } catch {
            readError = error
            failed = true
            stopped = true
            return 0
        }
        let allowed = prolog.scan(UnsafeRawBufferPointer(start: raw, count: count))
        if prolog.refusal != nil {
            failed = true
            stopped = true
            if prolog.refusal == .doctype {
                // What follows `<!D`, for the message only: the chunk's rest, and a little more.
                var following = Array(UnsafeRawBufferPointer(start: raw + min(allowed + 1, count), count: max(0, count - allowed - 1)))
                var more = [UInt8](repeating: 0, count: 64)
                let read = more.withUnsafeMutableBytes { buffer in buffer.baseAddress.map { (try? source.read(into: $0, count: 64)) ?? 0 } ?? 0 }
                following += more.prefix(read)
                prolog.classifyDoctype(following: following)
            }
        }
        return Int32(allowed)
    }

    /// libxml2's structured error callback: keeps the first error (warnings are ignored).
    func record(_ error: xmlError) {
        guard error.level.rawValue >= XML_ERR_ERROR.rawValue, parserError == nil else { return }
        let text = error.message.map { String(cString: $0) } ?? "unknown error"
        let message = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
        var parserError = ParserError(code: error.code, domain: error.domain, message: message,
                                      line: Int(error.line), column: Int(error.int2))
        // The reader's own push parser raised it: its state tells a truncated document (elements
        // still open) from content after the root, which libxml2 reports with the same code.
        if let context = error.ctxt, error.domain == Int32(XML_FROM_PARSER.rawValue) {
            let parser = context.assumingMemoryBound(to: xmlParserCtxt.self)
            parserError.afterRoot = parser.pointee.instate == XML_PARSER_EPILOG
            if parser.pointee.nameNr > 0, let name = parser.pointee.name {
                parserError.openElement = String(cString: name)
            }
        }
        self.parserError = parserError
        failed = true
    }
}
