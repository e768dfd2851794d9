import ImporterTestSupport
import Foundation
@testable import ImporterKit
import Testing

/// Library messages state the fact and leave the remedy's words to the front end: in the library's
/// own words (`description`) they name no command-line flag; with a front end's words, those words
/// stand where the remedy goes.
@Suite struct RemedyTests {
    static let errors: [any RemedialError] = [
        StoreError.locked(path: "s.sqlite", waitedMilliseconds: 0, holder: nil),
        StoreError.locked(path: "s.sqlite", waitedMilliseconds: 1500, holder: "importer run (pid 7)"),
        StoreError.notFound(path: "s.sqlite"),
        HistoryError.purgeNeedsForce(consumers: ["mailer"]),
        HistoryError.noConsumers,
        HistoryError.expiredToken(consumer: "mailer", kind: .external, token: 1, purgedThrough: 4),
        HistoryError.expiredToken(consumer: "by_year", kind: .view, token: 1, purgedThrough: 4),
        HistoryError.unknownConsumer("mailre"),
        UndoError.laterTransactions(number: 2, tokens: ["t3"]),
        ModelError.ambiguousMapping(path: "f.json", candidates: ["a", "b"]),
        ModelError.ambiguousMapping(path: "f.json", candidates: ["a"]),
        ImportError.tooManyRejects(count: 3, limit: 2, rejects: []),
        ImportError.store(.notFound(path: "s.sqlite")),
        QueryError.parameters(.positional(marker: "?")),
        QueryError.parameters(.missing("e")),
        QueryError.parameters(.unused("e")),
        QueryError.store(.locked(path: "s.sqlite", waitedMilliseconds: 0, holder: nil)),
    ]

    /// Marks each remedy so that the tests can find where it went.
    static func marked(_ remedy: Remedy) -> String { "<\(remedy)>" }

    @Test func libraryMessagesNameNoFlag() {
        for error in Self.errors {
            #expect(!error.description.contains("--"), "\(error.description)")
            for command in ["importer consumers", "importer views", "importer replay", "importer history", "importer run '"] {
                #expect(!error.description.contains(command), "names no command: \(error.description)")
            }
            #expect(error.description == error.message(Remedy.plain))
        }
    }

    @Test func eachMessageCarriesItsRemedyForTheFrontEndToWord() {
        for error in Self.errors {
            #expect(error.message(Self.marked).contains("<"), "\(error.message(Self.marked))")
        }
        #expect(StoreError.locked(path: "s.sqlite", waitedMilliseconds: 1500, holder: nil).message(Self.marked)
            == "store s.sqlite is busy: another process holds its write lock (waited 1.5 s; <waitLonger>)")
        #expect(ImportError.tooManyRejects(count: 3, limit: 2, rejects: []).message(Self.marked).hasPrefix("3 rejected record(s), more than <rejectLimit(2)>; first:"))
        #expect(QueryError.parameters(.unused("e")).message(Self.marked) == "query: <unusedParameter(\"e\")>: the statement has no parameter :e")
    }

    @Test func reportTargetProblemsNameNoOption() throws {
        let problems: [ReportTargetsError] = [
            .formatNotInferred(path: "r.bin", known: ["text", "json"]), .standardOutputWithoutFormat, .severalOnStandardOutput,
            .standardOutputTaken(format: .json, other: .csv),
        ]
        for problem in problems { #expect(!problem.description.contains("--"), "\(problem)") }
        #expect(throws: ReportTargetsError.severalOnStandardOutput) { try ReportTargets(formats: [.text, .json], outputs: []) }
        #expect(throws: ReportTargetsError.standardOutputTaken(format: .json, other: .csv)) {
            try ReportTargets(formats: [.csv], outputs: []).addingStandardOutput(.json)
        }
    }
}
