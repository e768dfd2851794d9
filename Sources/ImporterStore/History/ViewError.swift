import ImporterSupport
/// A view that no longer matches its history (a bug, or a store edited by hand): rebuild it.
public enum ViewError: Error, Sendable, Equatable, CustomStringConvertible {
    case outOfSync(view: String, reason: String)
    case unknownView(String)

    public var description: String {
        switch self {
        case .outOfSync(let view, let reason): "view \(view) is out of sync with history (\(reason)); run: importer views rebuild \(view)"
        case .unknownView(let name): "no view named '\(name)' (see importer views list)"
        }
    }
}

extension ViewError: ExitStatusError {
    public var exitStatus: ExitStatus {
        switch self {
        case .unknownView: .usage
        case .outOfSync: .internalFailure
        }
    }
}
