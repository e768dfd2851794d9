import ImporterModel
import ImporterSupport

/// Why a feed could not be read: a bad file, as opposed to a bad record (a reject).
///
/// Every case carries the location; the import that reads the feed fails and commits nothing.
public enum FeedError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not valid in the feed's syntax (JSON, XML, ...): what was expected and what was found.
    case syntax(SourceLocation, expected: String, found: String)
    /// Valid syntax, but not the shape the format requires (a missing `fields`, a row of the wrong length).
    case shape(SourceLocation, String)
    /// The feed declares a record count that differs from the number of records it holds:
    /// usually a truncated download.
    case countMismatch(SourceLocation, declared: Int, actual: Int)
    /// The feed's declared format version is not one this reader understands.
    case unsupportedVersion(SourceLocation, version: String, supported: String)
    /// The file could not be opened or read.
    case unreadable(path: String, reason: String)
    /// The document is an error answer of the feed's API (an `error` or `message` member), not data.
    case errorAnswer(SourceLocation, message: String)
    /// One record is larger than the reader accepts (a guard for bounded memory).
    case recordTooLarge(SourceLocation, limit: Int)

    public var location: SourceLocation? {
        switch self {
        case .syntax(let l, _, _), .shape(let l, _), .countMismatch(let l, _, _),
             .unsupportedVersion(let l, _, _), .recordTooLarge(let l, _), .errorAnswer(let l, _): l
        case .unreadable: nil
        }
    }

    public var description: String {
        switch self {
        case .syntax(let location, let expected, let found):
            "\(location): expected \(expected), found \(found)"
        case .shape(let location, let message):
            "\(location): \(message)"
        case .countMismatch(let location, let declared, let actual):
            "\(location): the feed declares count \(declared) but holds \(actual) records (truncated download?)"
        case .unsupportedVersion(let location, let version, let supported):
            "\(location): unsupported feed version \(version) (supported: \(supported))"
        case .unreadable(let path, let reason):
            "\(path): cannot read: \(reason)"
        case .errorAnswer(let location, let message):
            "\(location): the feed is an error answer, not data: \(message)"
        case .recordTooLarge(let location, let limit):
            "\(location): a record is larger than \(limit) bytes"
        }
    }
}

extension FeedError: ExitStatusError {
    public var exitStatus: ExitStatus {
        switch self {
        case .unreadable: .noInput
        case .syntax, .shape, .countMismatch, .unsupportedVersion, .errorAnswer, .recordTooLarge: .badInput
        }
    }
}
