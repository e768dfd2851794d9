/// A model that cannot be used: every problem found, each naming where it is.
public enum ModelError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(String)
    case problems([String])
    case unknownFeed(String, known: [String])

    public var description: String {
        switch self {
        case .invalid(let problem): "invalid model: \(problem)"
        case .problems(let problems): "invalid model:\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
        case .unknownFeed(let name, let known): "unknown feed mapping '\(name)' (the model has: \(known.joined(separator: ", ")))"
        }
    }
}
