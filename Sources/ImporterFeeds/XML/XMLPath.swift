/// An expanded XML name: a namespace URI (nil for no namespace) and a local name.
struct XMLName: Equatable, Sendable, CustomStringConvertible {
    var namespace: String?
    var localName: String

    var description: String { namespace.map { "{\($0)}\(localName)" } ?? localName }
}

/// Which of the elements a step names it keeps: `[2]` or `[@label='Magnitude']`.
enum XMLPredicate: Equatable, Sendable {
    /// The n-th (1-based) element of that name under the same parent element, within one record.
    case position(Int)
    /// The elements whose attribute has exactly this value.
    case attribute(XMLName, String)
}

/// One element step of a field address: a name and an optional predicate.
struct XMLStep: Equatable, Sendable {
    var name: XMLName
    var predicate: XMLPredicate?
}

/// Why a records path or a field address cannot be used.
struct XMLPathError: Error, Sendable {
    var message: String
}

/// The records path and the field addresses of an `xml` feed mapping.
///
/// A step is a name, optionally prefixed (`f:fireball`) with a prefix declared in the mapping's
/// `namespaces`. Two prefixes are predeclared: `xml`, and `default`, the default namespace declared
/// on the document's root element (no namespace when it declares none), unless the mapping declares
/// `default` itself. Names match by namespace URI and local name, as in XPath 1.0: **an unprefixed
/// step matches an element in no namespace**, also in a document with a default namespace
/// (`xmlns="…"`), whose elements are in that namespace: give its URI a prefix in `namespaces`, or
/// write `default:registry`. Unprefixed attributes are in no namespace whatever the default.
///
/// Field addresses (relative to the record element):
///
///     address   := '@' name | step ('/' step)* ['/' '@' name] | ('../')+ '@' name
///     ../@time  := an attribute of the record's parent (`../../@id`: of its grandparent), read
///                  when that ancestor's start tag is: ECB-style `<Cube time="…"><Cube currency=…/>`
///     step      := name [predicate]
///     predicate := '[' position ']'                          xref[2]
///                | '[' '@' name '=' quoted ']'                category[@label='Magnitude']
///     position  := 1, 2, 3, …  (the n-th element of that name under the same parent)
///     quoted    := '…' or "…" (the attribute's exact value; white space around '=' is allowed)
///
/// Predicates may stand on any element step (`a[2]/b`); records paths take none.
enum XMLPath {
    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"
    /// The predeclared prefix of the document's default namespace.
    static let defaultPrefix = "default"

    /// `declared` with `default` bound to `documentDefault` (`""`: no namespace), unless the
    /// mapping declares `default` itself. Before the document is read, any URI validates a path.
    static func namespaces(_ declared: [String: String], documentDefault: String?) -> [String: String] {
        var namespaces = declared
        if namespaces[defaultPrefix] == nil { namespaces[defaultPrefix] = documentDefault ?? "" }
        return namespaces
    }

    /// `/fireballs/fireball`: the element names from the root to a record element (the leading
    /// `/` is optional; every step is a name).
    static func records(_ text: String, namespaces: [String: String]) throws(XMLPathError) -> [XMLName] {
        let context = "records '\(text)'"
        let body = text.hasPrefix("/") ? text.dropFirst() : Substring(text)
        if body.hasPrefix("/") {
            throw XMLPathError(message: "\(context): descendant paths ('//') are not supported; give every element from the root, such as /fireballs/fireball")
        }
        guard !body.isEmpty else {
            throw XMLPathError(message: "\(context) names no element; give the path of the record elements, such as /fireballs/fireball")
        }
        var names: [XMLName] = []
        for step in try steps(of: body, in: context) {
            if step.hasPrefix("@") {
                throw XMLPathError(message: "\(context): records are elements, not attributes ('\(step)')")
            }
            if step.contains("[") {
                throw XMLPathError(message: "\(context): a records path takes no predicates ('\(step)'); choose among repeated elements in the field addresses")
            }
            names.append(try name(step, in: context, namespaces: namespaces))
        }
        return names
    }

    /// A field address below the record element: element steps (`date`, `location/lat`,
    /// `xref[2]`, `category[@label='Magnitude']`), then optionally an attribute (`@date`,
    /// `location/@lat`, `category[@label='Magnitude']/@term`); or an attribute of an ancestor of
    /// the record element (`../@time`), `up` levels above it.
    static func field(_ text: String, namespaces: [String: String]) throws(XMLPathError) -> (up: Int, elements: [XMLStep], attribute: XMLName?) {
        let context = "field '\(text)'"
        if text.hasPrefix("/") {
            throw XMLPathError(message: "\(context): field addresses are relative to the record element (write 'location/lat', not '/location/lat')")
        }
        var rest = Substring(text)
        var up = 0
        while rest.hasPrefix("../") {
            up += 1
            rest = rest.dropFirst(3)
        }
        if rest == ".." || rest.contains("/..") || rest.hasPrefix("..") {
            throw XMLPathError(message: "\(context): '..' steps lead an address and end in an ancestor's attribute, such as '../@time'")
        }
        if up > 0 {
            guard rest.hasPrefix("@"), !rest.contains("/"), !rest.contains("[") else {
                throw XMLPathError(message: "\(context): from an ancestor only an attribute can be read ('../@time'): its other elements are not part of the record")
            }
            return (up, [], try name(rest.dropFirst(), in: context, namespaces: namespaces))
        }
        let steps = try steps(of: rest, in: context)
        var elements: [XMLStep] = []
        var attribute: XMLName?
        for (index, step) in steps.enumerated() {
            if step.hasPrefix("@") {
                guard index == steps.count - 1 else {
                    throw XMLPathError(message: "\(context): an attribute ('\(step)') can only be the last step")
                }
                if step.contains("[") {
                    throw XMLPathError(message: "\(context): an attribute ('\(step)') takes no predicate; put it on the element (a[@k='v']/@b)")
                }
                attribute = try name(step.dropFirst(), in: context, namespaces: namespaces)
            } else {
                elements.append(try element(step, in: context, namespaces: namespaces))
            }
        }
        return (0, elements, attribute)
    }

    /// Splits a path at the `/` outside brackets and quotes.
    private static func steps(of text: Substring, in context: String) throws(XMLPathError) -> [Substring] {
        var steps: [Substring] = []
        var start = text.startIndex
        var quote: Character?
        var inBrackets = false
        for index in text.indices {
            let character = text[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if inBrackets && (character == "'" || character == "\"") {
                quote = character
            } else if character == "[" {
                inBrackets = true
            } else if character == "]" {
                inBrackets = false
            } else if character == "/" && !inBrackets {
                steps.append(text[start..<index])
                start = text.index(after: index)
            }
        }
        if quote != nil || inBrackets {
            throw XMLPathError(message: "\(context): a predicate is not closed (\(quote.map { "missing \($0) and ]" } ?? "missing ]"))")
        }
        steps.append(text[start...])
        return steps
    }

    /// An element step: a name, then at most one predicate.
    private static func element(_ step: Substring, in context: String, namespaces: [String: String]) throws(XMLPathError) -> XMLStep {
        guard let open = step.firstIndex(of: "[") else {
            return XMLStep(name: try name(step, in: context, namespaces: namespaces))
        }
        let name = try name(step[..<open], in: context, namespaces: namespaces)
        guard step.hasSuffix("]"), let close = step.lastIndex(of: "]") else {
            throw XMLPathError(message: "\(context): '\(step)': nothing may follow a predicate's ']' but '/'")
        }
        let inner = step[step.index(after: open)..<close]
        if inner.contains("]") && !inner.contains("'") && !inner.contains("\"") {
            throw XMLPathError(message: "\(context): '\(step)': one predicate per step")
        }
        let predicate = try self.predicate(inner, of: step, in: context, namespaces: namespaces)
        return XMLStep(name: name, predicate: predicate)
    }

    /// `2` or `@label='Magnitude'` (the text between the brackets).
    private static func predicate(_ inner: Substring, of step: Substring, in context: String, namespaces: [String: String]) throws(XMLPathError) -> XMLPredicate {
        let text = inner.trimmingSpaces
        let known = "write a position (xref[2]) or an attribute's value (category[@label='Magnitude'])"
        if let first = text.first, first.isASCII, first.isNumber {
            guard text.allSatisfy({ $0.isASCII && $0.isNumber }), let position = Int(text), position >= 1 else {
                throw XMLPathError(message: "\(context): '[\(inner)]' is not a position: positions are whole numbers from 1; \(known)")
            }
            return .position(position)
        }
        guard text.hasPrefix("@"), let equals = text.firstIndex(of: "=") else {
            throw XMLPathError(message: "\(context): '[\(inner)]' is not a predicate importer reads; \(known)")
        }
        let attribute = try name(text[text.index(after: text.startIndex)..<equals].trimmingSpaces, in: context, namespaces: namespaces)
        let literal = text[text.index(after: equals)...].trimmingSpaces
        guard let quote = literal.first, quote == "'" || quote == "\"", literal.count >= 2, literal.last == quote,
              !literal.dropFirst().dropLast().contains(quote) else {
            throw XMLPathError(message: "\(context): '[\(inner)]': the value must be one quoted string ('…' or \"…\"); \(known)")
        }
        return .attribute(attribute, String(literal.dropFirst().dropLast()))
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
    static func isNCName(_ text: Substring) -> Bool {
        guard let first = text.utf8.first else { return false }
        func isStart(_ byte: UInt8) -> Bool {
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte >= 0x80
        }
        guard isStart(first) else { return false }
        return text.utf8.allSatisfy { isStart($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x2E }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
