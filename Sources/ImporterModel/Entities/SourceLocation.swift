/// Where something is in a feed: the source name, and a 1-based line and column (columns count
/// bytes), plus the 0-based index of the record when the location is inside one.
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    public var source: String
    public var line: Int
    public var column: Int
    public var recordIndex: Int?
    /// A path to the value inside the record, when the format has one (a JSON pointer, an XML path).
    public var path: String?

    public init(source: String, line: Int, column: Int, recordIndex: Int? = nil, path: String? = nil) {
        self.source = source
        self.line = line
        self.column = column
        self.recordIndex = recordIndex
        self.path = path
    }

    public var description: String {
        var text = "\(source):\(line):\(column)"
        if let recordIndex { text += " (record \(recordIndex)" + (path.map { ", \($0)" } ?? "") + ")" }
        else if let path { text += " (\(path))" }
        return text
    }
}
