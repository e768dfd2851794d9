import Foundation

/// A URL as importer records and prints it: without userinfo, and with the values of secret query
/// parameters replaced by `REDACTED`, so that no credential reaches logs, reports, `status` or the
/// history's `source`.
public enum RedactedURL {
    /// Query parameters redacted whatever the source says (lower-cased, `-` and `_` ignored).
    public static let secretNames: Set<String> = [
        "apikey", "key", "token", "accesstoken", "authtoken", "auth", "password", "passwd", "pwd", "secret", "clientsecret",
        "signature", "sig", "session", "sessionid", "code",
    ]

    /// `url` redacted; `secretParameters` names more query parameters to redact.
    public static func text(_ url: URL, secretParameters: Set<String> = []) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(a URL importer cannot print)" }
        components.user = nil
        components.password = nil
        let extra = Set(secretParameters.map(normalized))
        components.queryItems = components.queryItems?.map { item in
            let name = normalized(item.name)
            return secretNames.contains(name) || extra.contains(name) ? URLQueryItem(name: item.name, value: "REDACTED") : item
        }
        return components.string ?? "(a URL importer cannot print)"
    }

    private static func normalized(_ name: String) -> String {
        name.lowercased().filter { $0 != "-" && $0 != "_" }
    }
}
