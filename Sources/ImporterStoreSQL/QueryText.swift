import ImporterModel

/// Caller-written SQL of `importer query` as both backends read it before handing it to the
/// database, which alone parses it: where its text starts, and how a `--param` value is bound.
package enum QueryText {
    /// `text` from its first character that is neither blank, nor one of `skipped`, nor inside a
    /// `--` or `/* */` comment.
    package static func afterBlanksAndComments(_ text: Substring, skipping skipped: Set<Character> = []) -> Substring {
        var text = text
        while true {
            text = text.drop { $0.isWhitespace || skipped.contains($0) }
            if text.hasPrefix("--") {
                text = text.drop { $0 != "\n" }
            } else if text.hasPrefix("/*"), let end = text.range(of: "*/") {
                text = text[end.upperBound...]
            } else {
                return text
            }
        }
    }

    /// A parameter's value as bound: a whole number (as it would print back) as an integer,
    /// anything else as text.
    package static func parameterValue(_ text: String) -> Value {
        if let integer = Int64(text), String(integer) == text { return .integer(integer) }
        return .text(text)
    }
}
