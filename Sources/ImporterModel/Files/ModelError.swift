import ImporterSupport
/// A model that cannot be used: every problem found, each naming where it is.
public enum ModelError: Error, Sendable, Equatable, RemedialError {
    case invalid(String)
    case problems([String])
    case unknownFeed(String, known: [String])
    /// No mapping, or several, could read the feed at `path`: the user must name one (or more).
    case ambiguousMapping(path: String, candidates: [String])
    /// The model file does not exist or cannot be read.
    case unreadable(path: String, reason: String)

    public func message(_ words: (Remedy) -> String) -> String {
        switch self {
        case .invalid(let problem): "invalid model: \(problem)"
        case .problems(let problems): "invalid model:\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
        case .unreadable(let path, let reason): "\(path): cannot read the model file: \(reason)"
        case .unknownFeed(let name, let known): "unknown feed mapping '\(name)' (the model has: \(known.joined(separator: ", ")))"
        case .ambiguousMapping(let path, let candidates):
            candidates.count > 1
                ? "several feed mappings could read \(path) (\(candidates.joined(separator: ", "))): \(words(.chooseMappings))"
                : "no feed mapping of the model reads \(path)'s format: \(words(.chooseMappingOrFormat(candidates: candidates)))"
        }
    }
}

extension ModelError: ExitStatusError {
    public var exitStatus: ExitStatus {
        switch self {
        case .unreadable: .noInput
        case .ambiguousMapping, .unknownFeed: .usage
        case .invalid, .problems: .storeUnusable
        }
    }
}
