/// A model that cannot be used: every problem found, each naming where it is.
public enum ModelError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(String)
    case problems([String])
    case unknownFeed(String, known: [String])
    /// The model file does not exist or cannot be read.
    case unreadable(path: String, reason: String)

    public var description: String {
        switch self {
        case .invalid(let problem): "invalid model: \(problem)"
        case .problems(let problems): "invalid model:\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
        case .unreadable(let path, let reason): "\(path): cannot read the model file: \(reason)"
        case .unknownFeed(let name, let known): "unknown feed mapping '\(name)' (the model has: \(known.joined(separator: ", ")))"
        }
    }
}
