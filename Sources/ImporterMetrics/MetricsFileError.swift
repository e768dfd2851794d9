import ImporterSupport

/// A metrics file that could not be written (the directory is missing or not writable, the disk
/// is full): exit 74 when the command itself succeeded.
package enum MetricsFileError: Error, Sendable, Equatable, CustomStringConvertible {
    case cannotWrite(path: String, reason: String)

    package var description: String {
        switch self {
        case .cannotWrite(let path, let reason): "cannot write the metrics file \(path): \(reason)"
        }
    }
}

extension MetricsFileError: ExitStatusError {
    package var exitStatus: ExitStatus {
        switch self {
        case .cannotWrite: .ioError
        }
    }
}
