import ImporterSupport

/// A run number that kept no rejects.
public struct UnknownRejectRun: Error, Sendable, CustomStringConvertible {
    public var run: Int64
    public var description: String { "no rejects kept for run \(run) (see importer rejects list)" }
}

extension UnknownRejectRun: ExitStatusError {
    public var exitStatus: ExitStatus { .noInput }
}
