/// Stops an XML document at its DOCTYPE before libxml2 parses any of it.
///
/// The reader's input callback passes each chunk through `scan` until the root element starts (then
/// the guard is done and costs nothing). It follows the prolog — byte order mark, XML declaration,
/// comments, processing instructions, white space — and at `<!D` refuses: the parser is given no
/// byte from there on, so no internal subset, entity declaration or external DTD reference is ever
/// parsed, whatever libxml2's options. Anything else in the prolog ends the guard's watch, because
/// libxml2 rejects it as malformed.
///
/// The guard must see the markup as libxml2 will, so it also refuses encodings where it could not:
/// UCS-4 and EBCDIC (told by the first bytes), and declared encodings that are not ASCII-compatible
/// or that would switch a UTF-16 document to another decoder (UTF-7, UTF-16BE in a little-endian
/// document, ...). Allowed: UTF-8, US-ASCII, ISO-8859-n, windows-125n, and UTF-16 told by its
/// byte order mark or first characters.
struct XMLPrologGuard {
    enum Refusal: Equatable, Sendable {
        /// `<!DOCTYPE`: a DTD, which may declare entities.
        case doctype
        /// The first bytes are UCS-4 or EBCDIC, or the declaration names an encoding not allowed.
        case encoding(String)
        /// An XML declaration too long to be checked.
        case declaration
    }

    /// Why the guard stopped the document, and where (1-based line and column, in code units).
    private(set) var refusal: Refusal?
    private(set) var line = 1
    private(set) var column = 0
    /// The root element has started (or the prolog is malformed): nothing more to watch.
    private(set) var isDone = false
    /// The refused DOCTYPE is `<!DOCTYPE html`: an HTML page, not a feed (`classifyDoctype`).
    private(set) var doctypeIsHTML = false

    /// Notes whether the bytes after a refused `<!D` (which the parser never gets) make it
    /// `<!DOCTYPE html`, so the refusal can name an HTML page as such.
    mutating func classifyDoctype(following bytes: [UInt8]) {
        guard refusal == .doctype, units == .single else { return }
        let rest = String(decoding: bytes.prefix(40), as: UTF8.self).lowercased()
        doctypeIsHTML = rest.hasPrefix("octype") && rest.dropFirst(6).drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }.hasPrefix("html")
    }

    private enum Units { case undetermined, single, utf16LittleEndian, utf16BigEndian }
    private enum State { case prolog, lessThan, bang, bangDash, comment, processingInstruction }
    private var units = Units.undetermined
    private var state = State.prolog
    /// The first byte of a UTF-16 code unit split across chunks.
    private var pendingByte: UInt8?
    private var atDocumentStart = true
    private var previousWasCarriageReturn = false
    /// Consecutive `-` in a comment, or whether the last unit of a processing instruction was `?`.
    private var marker = 0
    /// A processing instruction's text (between `<?` and `?>`) while it is read, to check the
    /// encoding of an XML declaration (also a misplaced one: libxml2 rejects it, but do not rely on it).
    private var declaration: [UInt8]?
    private var markupLine = 1
    private var markupColumn = 0

    static let maximumDeclarationLength = 512

    /// Lets everything through (tests of what stands behind the guard).
    mutating func stopWatching() {
        isDone = true
    }

    /// Scans the next bytes of the document; returns how many of them the parser may have (all of
    /// them, unless the guard refuses in this chunk).
    mutating func scan(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard !isDone, refusal == nil else { return refusal == nil ? bytes.count : 0 }
        var offset = 0
        if units == .undetermined {
            let start = detectUnits(bytes)
            if refusal != nil { return 0 }
            offset = start
        }
        while offset < bytes.count {
            let unit: UInt32
            switch units {
            case .single, .undetermined:
                unit = UInt32(bytes[offset])
                offset += 1
            case .utf16LittleEndian, .utf16BigEndian:
                let byte = bytes[offset]
                offset += 1
                guard let first = pendingByte else {
                    pendingByte = byte
                    continue
                }
                pendingByte = nil
                unit = units == .utf16LittleEndian ? UInt32(first) | UInt32(byte) << 8 : UInt32(first) << 8 | UInt32(byte)
            }
            if !consume(unit) {
                // Refused: the parser gets nothing from this unit on (a UTF-16 unit begun in the
                // previous chunk leaves a stray byte, which only makes the cut document more malformed).
                return max(0, offset - (units == .single ? 1 : 2))
            }
            if isDone { return bytes.count }
        }
        return bytes.count
    }

    /// Tells the code units from the first bytes, as libxml2 does; returns the bytes to skip (a
    /// UTF-8 byte order mark).
    private mutating func detectUnits(_ bytes: UnsafeRawBufferPointer) -> Int {
        let head = Array(bytes.prefix(4))
        func starts(with prefix: [UInt8]) -> Bool { head.count >= prefix.count && Array(head.prefix(prefix.count)) == prefix }
        if starts(with: [0x00, 0x00, 0x00, 0x3C]) || starts(with: [0x3C, 0x00, 0x00, 0x00])
            || starts(with: [0x00, 0x00, 0x3C, 0x00]) || starts(with: [0x00, 0x3C, 0x00, 0x00]) {
            refusal = .encoding("UCS-4")
            column = 1
            return 0
        }
        if starts(with: [0x4C, 0x6F, 0xA7, 0x94]) {
            refusal = .encoding("EBCDIC")
            column = 1
            return 0
        }
        if starts(with: [0x3C, 0x00, 0x3F, 0x00]) || starts(with: [0xFF, 0xFE]) {
            units = .utf16LittleEndian
            return 0
        }
        if starts(with: [0x00, 0x3C, 0x00, 0x3F]) || starts(with: [0xFE, 0xFF]) {
            units = .utf16BigEndian
            return 0
        }
        units = .single
        return starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    }

    /// Follows one code unit of the prolog; false when the guard refuses at this unit.
    private mutating func consume(_ unit: UInt32) -> Bool {
        if atDocumentStart && unit == 0xFEFF && units != .single { return true } // UTF-16 byte order mark
        if unit == 0x0A {
            if !previousWasCarriageReturn { line += 1 }
            column = 0
        } else if unit == 0x0D {
            line += 1
            column = 0
        } else {
            column += 1
        }
        previousWasCarriageReturn = unit == 0x0D
        atDocumentStart = false

        switch state {
        case .prolog:
            switch unit {
            case 0x20, 0x09, 0x0A, 0x0D: break
            case 0x3C: // <
                state = .lessThan
                markupLine = line
                markupColumn = column
            default: isDone = true // text before the root: malformed, libxml2 reports it
            }
        case .lessThan:
            switch unit {
            case 0x3F: // <?
                state = .processingInstruction
                marker = 0
                declaration = []
            case 0x21: // <!
                state = .bang
            default: isDone = true // the root element (or a malformed tag)
            }
        case .bang:
            if unit == 0x2D { // <!-
                state = .bangDash
            } else if unit == 0x44 { // <!D: DOCTYPE
                return refuse(.doctype)
            } else {
                isDone = true // not markup libxml2 accepts in a prolog
            }
        case .bangDash:
            if unit == 0x2D { state = .comment; marker = 0 } else { isDone = true }
        case .comment:
            if unit == 0x3E && marker >= 2 { state = .prolog }
            marker = unit == 0x2D ? marker + 1 : 0
        case .processingInstruction:
            if unit == 0x3E && marker == 1 {
                state = .prolog
                if let text = declaration {
                    declaration = nil
                    if let problem = checkDeclaration(text.dropLast()) { return refuse(problem) }
                }
                return true
            }
            marker = unit == 0x3F ? 1 : 0
            if let text = declaration {
                if text.count < Self.maximumDeclarationLength {
                    declaration?.append(unit < 0x80 ? UInt8(unit) : 0xFF)
                } else if Self.isXMLDeclaration(text) {
                    return refuse(.declaration)
                } else {
                    declaration = nil // another processing instruction: its text does not matter
                }
            }
        }
        return true
    }

    private mutating func refuse(_ reason: Refusal) -> Bool {
        refusal = reason
        line = markupLine
        column = markupColumn
        return false
    }

    /// The declaration's encoding, when it is one the guard cannot follow.
    private func checkDeclaration(_ text: ArraySlice<UInt8>) -> Refusal? {
        guard Self.isXMLDeclaration(text),
              let encoding = Self.pseudoAttribute("encoding", in: String(decoding: text, as: UTF8.self)) else { return nil }
        return Self.isAllowed(encoding, utf16: units != .single) ? nil : .encoding(encoding)
    }

    /// `xml` then white space: an XML declaration (`<?xml-stylesheet` is not).
    private static func isXMLDeclaration<Text: Collection<UInt8>>(_ text: Text) -> Bool {
        Array(text.prefix(4)).starts(with: Array("xml".utf8)) && [0x20, 0x09, 0x0A, 0x0D].contains(text.dropFirst(3).first ?? 0)
    }

    /// The value of `name="…"` (or `'…'`) in an XML declaration.
    static func pseudoAttribute(_ name: String, in declaration: String) -> String? {
        var rest = Substring(declaration)
        while let range = rest.range(of: name) {
            var after = rest[range.upperBound...].drop { $0.isWhitespace }
            rest = rest[range.upperBound...]
            guard after.first == "=" else { continue }
            after = after.dropFirst().drop { $0.isWhitespace }
            guard let quote = after.first, quote == "\"" || quote == "'" else { return nil }
            let value = after.dropFirst()
            guard let end = value.firstIndex(of: quote) else { return nil }
            return String(value[..<end])
        }
        return nil
    }

    /// Encodings whose markup characters are the ASCII bytes the guard reads.
    static func isAllowed(_ encoding: String, utf16: Bool) -> Bool {
        let name = encoding.uppercased()
        if utf16 { return name == "UTF-16" || name == "UTF16" }
        if ["UTF-8", "UTF8", "US-ASCII", "ASCII", "LATIN1", "ISO-LATIN-1"].contains(name) { return true }
        if name.hasPrefix("ISO-8859-"), let part = Int(name.dropFirst(9)), (1...16).contains(part) { return true }
        if name.hasPrefix("WINDOWS-125"), name.count == 12, let digit = name.last?.wholeNumberValue, digit <= 8 { return true }
        return false
    }
}
