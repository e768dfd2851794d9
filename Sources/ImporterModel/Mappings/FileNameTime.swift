import Foundation

/// Where an archived snapshot's time is in its file name (`timestamp-from:` on a feed mapping):
/// the first capture group of `pattern` (a regular expression searched in the file's name),
/// read with `format` (a `DateTimeFormat` pattern, UTC) or, without one, as ISO 8601. A run of
/// such a feed without `--timestamp` is stamped with that time.
public struct FileNameTime: Sendable, Equatable {
    public var pattern: String
    public var format: String?

    public init(pattern: String, format: String? = nil) {
        self.pattern = pattern
        self.format = format
    }

    /// The time in the name of the file at `path`, as canonical date-and-time text
    /// (`2024-03-01 00:00:00`) or ISO 8601 text as written; nil when the name does not match, or
    /// its capture does not read with `format`.
    public func time(inFileAt path: String) -> String? {
        let name = (path as NSString).lastPathComponent
        guard let expression = try? NSRegularExpression(pattern: pattern),
              let match = expression.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)), match.numberOfRanges > 1,
              let range = Range(match.range(at: 1), in: name) else { return nil }
        let captured = String(name[range])
        guard let format else { return captured }
        guard let dateFormat = try? DateTimeFormat(pattern: format) else { return nil }
        var text = captured
        var output: [UInt8] = []
        let parsed = text.withUTF8 { bytes in bytes.baseAddress.map { dateFormat.parse($0, count: bytes.count, includeTime: true, into: &output) } ?? false }
        return parsed ? String(decoding: output, as: UTF8.self) : nil
    }

    /// Why the rule cannot work: a pattern that is not a regular expression or has no capture
    /// group, a format that is not one.
    public var problem: String? {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return "'\(pattern)' is not a regular expression" }
        if expression.numberOfCaptureGroups < 1 { return "'\(pattern)' has no capture group (the time is the first group's text)" }
        if let format, (try? DateTimeFormat(pattern: format)) == nil { return "format '\(format)' is not a date and time pattern" }
        return nil
    }
}
