import ImporterSupport

/// Why report formats and output paths do not pair up. The library states the problem; the front
/// end names its own options for formats, files and standard output (`description` names none).
public enum ReportTargetsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A file without a format whose extension names none of `known`.
    case formatNotInferred(path: String, known: [String])
    /// Standard output given as a file, without a format (it has no extension).
    case standardOutputWithoutFormat
    /// More than one report would go to standard output.
    case severalOnStandardOutput
    /// `format` is the report on standard output, and the report in `other` has no file either.
    case standardOutputTaken(format: ReportFormat, other: ReportFormat)

    public var description: String {
        switch self {
        case .formatNotInferred(let path, let known):
            "report file \(path): no format given, and the extension does not name one of \(known.joined(separator: ", "))"
        case .standardOutputWithoutFormat:
            "a report to standard output needs its format (standard output has no extension)"
        case .severalOnStandardOutput:
            "only one report can go to standard output: give the others a file"
        case .standardOutputTaken(let format, let other):
            "the \(format.rawValue) report is the one on standard output, and the \(other.rawValue) report has no file: give it one"
        }
    }
}

extension ReportTargetsError: ExitStatusError {
    public var exitStatus: ExitStatus { .usage }
}
