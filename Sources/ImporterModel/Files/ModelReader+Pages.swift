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

extension ModelReader {
    /// `url-values:` of a feed mapping: `{name: {max|min: attribute, initial: text, format: stored|date|iso8601, lag: 30d}}`,
    /// one for each `{name}` in the URL.
    mutating func urlValues(_ node: Node?, _ path: String, url: String, in parent: Node) -> [URLValue] {
        let used = URLValue.placeholders(in: url)
        guard let node else {
            if let name = used.first { problem(parent, "\(path).url", "'{\(name)}' has no value: declare it under 'url-values'") }
            return []
        }
        guard let pairs = node.mapping else {
            problem(node, "\(path).url-values", "expected a mapping of names to {max: attribute} or {min: attribute}")
            return []
        }
        var values: [URLValue] = []
        for (key, item) in pairs {
            guard let name = key.string else { continue }
            let itemPath = "\(path).url-values.\(name)"
            guard let fields = mapping(item, itemPath, allowed: ["max", "min", "initial", "format", "lag"]) else { continue }
            let ends = Extreme.allCases.filter { fields[$0.rawValue] != nil }
            guard ends.count == 1, let end = ends.first, let attribute = string(fields, end.rawValue, itemPath, in: item) else {
                problem(item, itemPath, "give exactly one of 'max: attribute' or 'min: attribute'")
                continue
            }
            let formatText = string(fields, "format", itemPath, in: item) ?? "stored"
            guard let format = URLValue.Format(rawValue: formatText) else {
                problem(fields["format"], "\(itemPath).format", "'\(formatText)' is not one of: stored, date, iso8601")
                continue
            }
            var lag: URLValueLag?
            if let lagNode = fields["lag"] {
                let text = lagNode.string ?? ""
                lag = URLValueLag(text)
                if lag == nil { problem(lagNode, "\(itemPath).lag", "'\(text)' is not a look-back: a duration (30d, 12h, 90m, 45s) or a number, not negative") }
            }
            if !used.contains(name) { problem(key, itemPath, "the url has no '{\(name)}'") }
            values.append(URLValue(name: name, extreme: end, attribute: attribute, initial: string(fields, "initial", itemPath, in: item), format: format, lag: lag))
        }
        for name in used where !values.contains(where: { $0.name == name }) {
            problem(node, "\(path).url-values", "'{\(name)}' in the url has no value here")
        }
        return values
    }
}
