/// How a write transaction ends, chosen by its body (GRDB's `Database.TransactionCompletion`):
/// a dry run or a check returns `.rollback(result)` rather than throwing a sentinel error to undo
/// its work. A body that throws is rolled back too, and its error propagates.
public enum TransactionCompletion<Result> {
    case commit(Result)
    case rollback(Result)

    public var result: Result {
        switch self {
        case .commit(let result), .rollback(let result): result
        }
    }

    /// Commit, or roll back when `rollingBack` holds.
    public static func commit(_ result: Result, unless rollingBack: Bool) -> Self {
        rollingBack ? .rollback(result) : .commit(result)
    }
}
