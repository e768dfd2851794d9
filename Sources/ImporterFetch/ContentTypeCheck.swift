import Foundation
import ImporterModel

/// Whether a 2xx answer's `Content-Type` contradicts the format the mapping reads: an HTML page
/// (a login wall, an error page served with 200) for any feed, XML for a JSON feed, JSON for an
/// XML one. Types that say little (`text/plain`, `application/octet-stream`, none) are accepted.
enum ContentTypeCheck {
    static func contradicts(_ contentType: String?, format: FeedFormat?) -> Bool {
        guard let contentType, let format else { return false }
        let type = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        if type == "text/html" || type == "application/xhtml+xml" { return true }
        let isXML = type.hasSuffix("/xml") || type.hasSuffix("+xml")
        let isJSON = type.hasSuffix("/json") || type.hasSuffix("+json") || type.hasSuffix("ndjson")
        switch format {
        case .json, .ndjson, .nasaColumnar: return isXML
        case .xml: return isJSON
        case .csv: return isXML || isJSON
        }
    }
}
