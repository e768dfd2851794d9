import Foundation

/// Query parameters set and removed the way importer sends them: values percent-encoded beyond
/// RFC 3986's unreserved characters, so that a cursor's or a key's `+`, `/` and `=` arrive as they
/// were (a server would read a bare `+` as a space).
public enum QueryParameters {
    /// `text` percent-encoded for a query value (`:` kept, as in ISO 8601 times).
    public static func encoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~:")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// `url` with each parameter set to its value (replacing one of the same name, else added at
    /// the end); nil when the URL cannot take them.
    public static func setting(_ parameters: [(name: String, value: String)], in url: URL) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        var items = components.percentEncodedQueryItems ?? []
        for (name, value) in parameters {
            items.removeAll { $0.name == name }
            items.append(URLQueryItem(name: name, value: encoded(value)))
        }
        components.percentEncodedQueryItems = items
        return components.url
    }

    /// `url` without the parameters named `names`.
    public static func removing(_ names: Set<String>, from url: URL) -> URL {
        guard !names.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let items = components.percentEncodedQueryItems else { return url }
        components.percentEncodedQueryItems = items.filter { !names.contains($0.name) }
        if components.percentEncodedQueryItems?.isEmpty == true { components.percentEncodedQuery = nil }
        return components.url ?? url
    }
}
