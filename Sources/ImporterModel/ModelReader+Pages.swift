import Yams

extension ModelReader {
    /// `pages:` of a feed mapping: `follow: link | url | cursor | offset | page`, with the keys each
    /// needs (`pointer`, `parameter`, `size`, `start`) and an optional `max` number of pages.
    mutating func pages(_ node: Node, _ path: String, format: FeedFormat) -> Pagination? {
        guard let fields = mapping(node, path, allowed: ["follow", "pointer", "parameter", "size", "start", "max"]),
              let kind = string(fields, "follow", path, required: true, in: node) else { return nil }
        let pointer = { (reader: inout ModelReader) -> String? in
            guard let text = reader.string(fields, "pointer", path, required: true, in: node) else { return nil }
            guard text.hasPrefix("/") else {
                reader.problem(fields["pointer"], "\(path).pointer", "'\(text)' is not a JSON pointer (it starts with /)")
                return nil
            }
            guard format == .json || format == .nasaColumnar else {
                reader.problem(fields["pointer"], "\(path).pointer", "a pointer into the page needs a JSON feed (this one is \(format.rawValue))")
                return nil
            }
            return text
        }
        let follow: Pagination.Follow?
        switch kind {
        case "link": follow = .link
        case "url": follow = pointer(&self).map { .url(pointer: $0) }
        case "cursor":
            let at = pointer(&self), parameter = string(fields, "parameter", path, required: true, in: node)
            follow = at.flatMap { at in parameter.map { .cursor(pointer: at, parameter: $0) } }
        case "offset":
            let parameter = string(fields, "parameter", path, required: true, in: node)
            let size = count(fields, "size", path, required: true, in: node), start = count(fields, "start", path, minimum: 0, in: node) ?? 0
            follow = parameter.flatMap { parameter in size.map { .offset(parameter: parameter, size: $0, start: start) } }
        case "page":
            let parameter = string(fields, "parameter", path, required: true, in: node)
            follow = parameter.map { .page(parameter: $0, start: count(fields, "start", path, minimum: 0, in: node) ?? 1) }
        default:
            problem(fields["follow"], "\(path).follow", "'\(kind)' is not a way of paging (expected one of: link, url, cursor, offset, page)")
            return nil
        }
        let maxPages = count(fields, "max", path, in: node) ?? Pagination.defaultMaxPages
        return follow.map { Pagination(follow: $0, maxPages: maxPages) }
    }

    /// A whole number of at least `minimum`.
    private mutating func count(_ fields: [String: Node], _ key: String, _ path: String, required: Bool = false, minimum: Int = 1,
                                in parent: Node) -> Int? {
        guard let node = fields[key] else {
            if required { problem(parent, path, "missing '\(key)'") }
            return nil
        }
        guard let number = node.int, number >= minimum else {
            problem(node, "\(path).\(key)", "expected a whole number of at least \(minimum)")
            return nil
        }
        return number
    }
}
