import Foundation

/// The `Link` header of an answer (RFC 8288), for the one link paged APIs use: `rel="next"`.
public enum LinkHeader {
    /// The target of the first link whose relation types include `next`, resolved against `base`;
    /// nil when there is none. `values` are the header's field values (it may be sent several
    /// times, each a comma-separated list of `<URI>; param=value` links).
    public static func next(_ values: [String], base: URL) -> URL? {
        for value in values {
            for link in links(value) where link.relations.contains("next") {
                if let url = URL(string: link.target, relativeTo: base)?.absoluteURL { return url }
            }
        }
        return nil
    }

    /// Each link of one field value: its target and its lowercased relation types.
    static func links(_ value: String) -> [(target: String, relations: [String])] {
        var result: [(String, [String])] = []
        var rest = Substring(value)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            let target = String(rest[rest.index(after: open) ..< close])
            rest = rest[rest.index(after: close)...]
            // The parameters run to the next comma that is outside a quoted string.
            var end = rest.endIndex
            var quoted = false
            for index in rest.indices {
                if rest[index] == "\"" { quoted.toggle() }
                if rest[index] == ",", !quoted { end = index; break }
            }
            let parameters = rest[..<end]
            rest = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
            result.append((target, relations(in: parameters)))
        }
        return result
    }

    private static func relations(in parameters: Substring) -> [String] {
        for parameter in parameters.split(separator: ";") {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "rel" else { continue }
            let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            return value.lowercased().split(separator: " ").map(String.init)
        }
        return []
    }
}
