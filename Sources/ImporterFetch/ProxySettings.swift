import AsyncHTTPClient
import Foundation

/// The proxy curl would use: `https_proxy`/`HTTPS_PROXY` for https URLs, `http_proxy`/`HTTP_PROXY`
/// for http ones, none for hosts `no_proxy`/`NO_PROXY` lists (exact names, `.suffix` domains or `*`);
/// credentials in the proxy's URL (`http://user:pass@proxy:3128`) go to the proxy as Basic. Used by
/// URL feeds and by webhooks alike.
package struct ProxySettings {
    let environment: [String: String]

    package init(environment: [String: String]) {
        self.environment = environment
    }

    package func proxy(for url: URL) -> HTTPClient.Configuration.Proxy? {
        guard let host = url.host?.lowercased(), !bypassed(host) else { return nil }
        let names = url.scheme == "https" ? ["https_proxy", "HTTPS_PROXY"] : ["http_proxy", "HTTP_PROXY"]
        guard let value = names.lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }) else { return nil }
        let withScheme = value.contains("://") ? value : "http://" + value
        guard let proxy = URL(string: withScheme), let proxyHost = proxy.host else { return nil }
        if let user = proxy.user(percentEncoded: false), let password = proxy.password(percentEncoded: false) {
            return .server(host: proxyHost, port: proxy.port ?? 80, authorization: .basic(username: user, password: password))
        }
        return .server(host: proxyHost, port: proxy.port ?? 80)
    }

    private func bypassed(_ host: String) -> Bool {
        let list = (environment["no_proxy"] ?? environment["NO_PROXY"] ?? "").lowercased()
        return list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.contains { entry in
            entry == "*" || entry == host || (entry.hasPrefix(".") ? host.hasSuffix(entry) : host.hasSuffix("." + entry))
        }
    }
}
