import Foundation

/// Credentials written in a URL (`https://user:pass@host/feed`), sent as curl sends them: as Basic
/// authorization to the URL's own origin, never in the request line, never printed
/// (`RedactedURL` drops them).
public enum URLCredentials {
    /// The `Authorization` value for `url`'s userinfo (percent-decoded), or nil when it has none.
    public static func basicAuthorization(_ url: URL) -> String? {
        guard let user = url.user(percentEncoded: false) else { return nil }
        let password = url.password(percentEncoded: false) ?? ""
        return "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// `url` without its userinfo.
    public static func removed(from url: URL) -> URL {
        guard url.user != nil, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.user = nil
        components.password = nil
        return components.url ?? url
    }
}
