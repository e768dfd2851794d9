import CLibXML2
import Foundation
import ImporterModel

/// Errors and names of `XMLRecordsReader`: libxml2's messages turned into located feed errors.
extension XMLRecordsReader {
    // MARK: - Errors

    func location(line: Int, column: Int) -> SourceLocation {
        SourceLocation(source: sourceName, line: line, column: column, recordIndex: currentRecord)
    }

    /// Why reading stopped: the guard's refusal first (libxml2 then only saw a cut document), then
    /// a failed read, then libxml2's first error.
    func failure() -> FeedError {
        let prolog = input.prolog
        switch prolog.refusal {
        case .doctype:
            return .shape(SourceLocation(source: sourceName, line: prolog.line, column: prolog.column),
                          prolog.doctypeIsHTML ? "the document is an HTML page (<!DOCTYPE html>), not an XML feed: an error or login page?" : Self.dtdRefusal)
        case .encoding(let name):
            return .shape(SourceLocation(source: sourceName, line: prolog.line, column: max(1, prolog.column)),
                          "the encoding \(name) is not supported (use UTF-8, US-ASCII, ISO-8859-n or windows-125n, or UTF-16 with a byte order mark)")
        case .declaration:
            return .shape(SourceLocation(source: sourceName, line: prolog.line, column: prolog.column),
                          "the XML declaration is longer than \(XMLPrologGuard.maximumDeclarationLength) characters")
        case nil:
            break
        }
        if let error = input.readError { return error }
        guard let error = input.parserError else {
            return .syntax(SourceLocation(source: sourceName, line: Int(xmlTextReaderGetParserLineNumber(reader)), column: Int(xmlTextReaderGetParserColumnNumber(reader))),
                           expected: "well-formed XML", found: "an error libxml2 did not describe")
        }
        // Not `currentRecord`: libxml2's parser runs ahead of the node the reader is on.
        let line = error.line > 0 ? error.line : Int(xmlTextReaderGetParserLineNumber(reader))
        let location = SourceLocation(source: sourceName, line: line, column: error.column)
        let found = Self.lowercasingFirst(error.message)
        switch error.code {
        case Int32(XML_ERR_DOCUMENT_EMPTY.rawValue), Int32(XML_ERR_DOCUMENT_END.rawValue):
            // libxml2's push parser says "extra content at the end of the document" for all three.
            if error.afterRoot { return .syntax(location, expected: "the end of the document after the root element", found: found) }
            if let open = error.openElement { return .syntax(location, expected: "the end tag of <\(open)>", found: "the end of the input (truncated?)") }
            return .syntax(location, expected: "a root element", found: "the end of the input")
        default:
            return .syntax(location, expected: expectation(for: error), found: found)
        }
    }

    /// What libxml2 wanted instead, in the words of the other readers.
    func expectation(for error: XMLInput.ParserError) -> String {
        if error.domain == Int32(XML_FROM_NAMESPACE.rawValue) { return "namespace prefixes declared with xmlns" }
        switch error.code {
        case Int32(XML_ERR_INVALID_CHAR.rawValue), Int32(XML_ERR_INVALID_ENCODING.rawValue),
             Int32(XML_ERR_UNKNOWN_ENCODING.rawValue), Int32(XML_ERR_UNSUPPORTED_ENCODING.rawValue):
            return "text in the document's encoding (UTF-8 unless declared)"
        case Int32(XML_ERR_TAG_NAME_MISMATCH.rawValue), Int32(XML_ERR_TAG_NOT_FINISHED.rawValue):
            return "the end tag of the open element"
        case Int32(XML_ERR_UNDECLARED_ENTITY.rawValue), Int32(XML_WAR_UNDECLARED_ENTITY.rawValue):
            return "a character reference or a predefined entity (&lt; &gt; &amp; &apos; &quot;)"
        default:
            return "well-formed XML"
        }
    }

    /// "Opening and ending tag mismatch…" → "opening and ending tag mismatch…" (not "XML …").
    static func lowercasingFirst(_ message: String) -> String {
        guard let first = message.first, first.isUppercase,
              message.dropFirst().first.map({ !$0.isUppercase }) ?? true else { return message }
        return first.lowercased() + message.dropFirst()
    }

    // MARK: - Names

    func intern(_ name: XMLName) throws(FeedError) -> XMLFieldTree.Name {
        guard let interned = Self.intern(name, in: reader) else { throw Self.outOfMemory(sourceName) }
        return interned
    }

    /// A field address with its names and predicate values interned.
    func intern(_ address: (up: Int, elements: [XMLStep], attribute: XMLName?)) throws(FeedError) -> (elements: [XMLFieldTree.Step], attribute: XMLFieldTree.Name?) {
        var elements: [XMLFieldTree.Step] = []
        for step in address.elements {
            var interned = XMLFieldTree.Step(name: try intern(step.name))
            switch step.predicate {
            case .position(let position)?:
                interned.position = Int32(clamping: position)
            case .attribute(let name, let value)?:
                interned.attribute = try intern(name)
                guard let value = Self.intern(value, in: reader) else { throw Self.outOfMemory(sourceName) }
                interned.value = value
            case nil:
                break
            }
            elements.append(interned)
        }
        return (elements, try address.attribute.map { name throws(FeedError) in try intern(name) })
    }

    static func outOfMemory(_ sourceName: String) -> FeedError {
        .unreadable(path: sourceName, reason: "libxml2 is out of memory")
    }

    /// `name` with both parts in the reader's dictionary, or nil when libxml2 is out of memory.
    static func intern(_ name: XMLName, in reader: OpaquePointer) -> XMLFieldTree.Name? {
        guard let localName = intern(name.localName, in: reader) else { return nil }
        guard let namespace = name.namespace else { return XMLFieldTree.Name(localName: localName, namespace: nil) }
        guard let interned = intern(namespace, in: reader) else { return nil }
        return XMLFieldTree.Name(localName: localName, namespace: interned)
    }

    /// `string` in the reader's dictionary (where libxml2 keeps parsed names), valid while the
    /// reader lives.
    static func intern(_ string: String, in reader: OpaquePointer) -> UnsafePointer<xmlChar>? {
        var bytes = Array(string.utf8)
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { xmlTextReaderConstString(reader, $0.baseAddress) }
    }
}
