import ImporterTestSupport
import ImporterKit
import ImporterSupport
import Testing

/// Swift Testing has an `ExitStatus` of its own.
typealias ImporterExitStatus = ImporterSupport.ExitStatus

/// Each error states its exit status (`ExitStatusError`); wrapped errors take their cause's; an
/// error no type declared a status for is an internal failure (70).
@Suite struct ExitStatusTests {
    struct Undeclared: Error {}

    static let location = SourceLocation(source: "feed.json", line: 1, column: 1)

    @Test(arguments: [
        (ImportError.store(.locked(path: "s", waitedMilliseconds: 0, holder: nil)) as any Error, ImporterExitStatus.locked),
        (ImportError.feed(.syntax(location, expected: "{", found: "<")), .badInput),
        (ImportError.interrupted(signal: 15), .terminated),
        (ImportError.interrupted(signal: 2), .interrupted),
        (ImportError.model(.ambiguousMapping(path: "f", candidates: ["a", "b"])), .usage),
        (ModelError.problems(["x"]), .storeUnusable),
        (FeedError.unreadable(path: "f", reason: "gone"), .noInput),
        (StoreError.database(DatabaseError(backend: .sqlite, code: "778", message: "disk I/O error", sql: nil, kind: .io, description: "")), .ioError),
        (StoreError.database(DatabaseError(backend: .postgresql, code: nil, message: "closed", sql: nil, kind: .connection, description: "")), .ioError),
        (StoreError.database(DatabaseError(backend: .postgresql, code: "23505", message: "dup", sql: "INSERT", kind: .constraint, description: "")),
         .internalFailure),
        (StoreError.refused(at: nil, what: "a record of f", reason: "UNIQUE constraint failed: note.body"), .badInput),
        (StoreError.invariant("recorded 2 deletes but deleted 1"), .internalFailure),
        (StoreError.notAnImporterStore(path: "postgres://h/db", backend: .postgresql), .badInput),
        (StoreError.unavailable(location: "db", reason: "down"), .unavailable),
        (HistoryError.tokenMoved(consumer: "c"), .locked),
        (QueryError.parameters(.missing("p")), .usage),
        (QueryError.store(.notFound(path: "s")), .noInput),
        (OutputError.writeFailed("out"), .ioError),
        (Undeclared(), .internalFailure),
    ])
    func errorsStateTheirStatus(error: any Error, status: ImporterExitStatus) {
        #expect(ImporterExitStatus.forError(error) == status)
    }
}
