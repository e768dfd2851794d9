/// An expanded XML name: a namespace URI (nil for no namespace) and a local name.
struct XMLName: Equatable, Sendable, CustomStringConvertible {
    var namespace: String?
    var localName: String

    var description: String { namespace.map { "{\($0)}\(localName)" } ?? localName }
}

/// Why a records path or a field address cannot be used.
struct XMLPathError: Error, Sendable {
    var message: String
}

/// The records path and the field addresses of an `xml` feed mapping.
///
/// A step is a name, optionally prefixed (`f:fireball`) with a prefix declared in the mapping's
/// `namespaces` (`xml` is predeclared). Names match by namespace URI and local name, as in XPath 1.0:
/// **an unprefixed step matches an element in no namespace**, also in a document with a default
/// namespace (`xmlns="…"`), whose elements are in that namespace: give its URI a prefix in
/// `namespaces` to match them. Unprefixed attributes are in no namespace whatever the default.
enum XMLPath {
    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"

    /// `/fireballs/fireball`: the element names from the root to a record element (the leading
    /// `/` is optional; every step is a name).
    static func records(_ text: String, namespaces: [String: String]) throws(XMLPathError) -> [XMLName] {
        let body = text.hasPrefix("/") ? text.dropFirst() : Substring(text)
        if body.hasPrefix("/") {
            throw XMLPathError(message: "records '\(text)': descendant paths ('//') are not supported; give every element from the root, such as /fireballs/fireball")
        }
        guard !body.isEmpty else {
            throw XMLPathError(message: "records '\(text)' names no element; give the path of the record elements, such as /fireballs/fireball")
        }
        var names: [XMLName] = []
        for step in body.split(separator: "/", omittingEmptySubsequences: false) {
            if step.hasPrefix("@") {
                throw XMLPathError(message: "records '\(text)': records are elements, not attributes ('\(step)')")
            }
            names.append(try name(step, in: "records '\(text)'", namespaces: namespaces))
        }
        return names
    }

    /// A field address below the record element: child elements (`date`, `location/lat`), then
    /// optionally an attribute (`@date`, `location/@lat`).
    static func field(_ text: String, namespaces: [String: String]) throws(XMLPathError) -> (elements: [XMLName], attribute: XMLName?) {
        let context = "field '\(text)'"
        if text.hasPrefix("/") {
            throw XMLPathError(message: "\(context): field addresses are relative to the record element (write 'location/lat', not '/location/lat')")
        }
        let steps = text.split(separator: "/", omittingEmptySubsequences: false)
        var elements: [XMLName] = []
        var attribute: XMLName?
        for (index, step) in steps.enumerated() {
            if step.hasPrefix("@") {
                guard index == steps.count - 1 else {
                    throw XMLPathError(message: "\(context): an attribute ('\(step)') can only be the last step")
                }
                attribute = try name(step.dropFirst(), in: context, namespaces: namespaces)
            } else {
                elements.append(try name(step, in: context, namespaces: namespaces))
            }
        }
        return (elements, attribute)
    }

    /// One step: `name` or `prefix:name`.
    static func name(_ step: Substring, in context: String, namespaces: [String: String]) throws(XMLPathError) -> XMLName {
        let parts = step.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.allSatisfy(isNCName) else {
            throw XMLPathError(message: "\(context): '\(step)' is not an XML name" + (step.isEmpty ? " (empty step)" : ""))
        }
        guard parts.count == 2 else { return XMLName(namespace: nil, localName: String(step)) }
        let prefix = String(parts[0])
        let uri: String
        if prefix == "xml" {
            uri = xmlNamespace
        } else if let declared = namespaces[prefix] {
            uri = declared
        } else {
            throw XMLPathError(message: "\(context): the namespace prefix '\(prefix)' is not declared in the mapping's namespaces")
        }
        return XMLName(namespace: uri.isEmpty ? nil : uri, localName: String(parts[1]))
    }

    /// A name without a colon: a letter, `_` or non-ASCII first, then also digits, `-` and `.`.
    private static func isNCName(_ text: Substring) -> Bool {
        guard let first = text.utf8.first else { return false }
        func isStart(_ byte: UInt8) -> Bool {
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte >= 0x80
        }
        guard isStart(first) else { return false }
        return text.utf8.allSatisfy { isStart($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x2E }
    }
}
