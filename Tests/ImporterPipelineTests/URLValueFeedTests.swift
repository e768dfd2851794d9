import ImporterTestSupport
import Foundation
import HTTPTestSupport
@testable import ImporterKit
import ImporterFetch
import ImporterSupport
import Synchronization
import Testing

/// Incremental sources: a URL whose `{since}` is the latest value the store holds, filled before
/// the fetch and checked again inside the run's transaction, recorded under its template; a sync
/// of such a source is refused, and a store that moved meanwhile writes nothing.
@Suite struct URLValueFeedTests {
    static func model(port: Int, format: String = "iso8601", initial: String? = "2024-01-01", lag: String? = nil) throws -> Model {
        try ModelFile.parse("""
            entities:
            - name: Quake
              key: [code]
              attributes:
              - {name: code, type: text, required: true}
              - {name: time, type: datetime}
            feeds:
            - name: quakes
              format: json
              url: "http://127.0.0.1:\(port)/quakes?since={latest}&limit=50"
              url-values:
                latest: {max: time, format: \(format)\(initial.map { ", initial: \"\($0)\"" } ?? "")\(lag.map { ", lag: \($0)" } ?? "")}
              fields: [{attribute: code, field: id}, {attribute: time, field: time, format: iso8601}]
            """, name: "incremental.yaml")
    }

    /// The records at or after `since` of `all` (code → ISO time), as the API would answer.
    static func answer(_ all: [(String, String)], since: String?) -> String {
        let chosen = all.filter { since == nil || $0.1 >= since! }
        return "[" + chosen.map { #"{"id":"\#($0.0)","time":"\#($0.1)"}"# }.joined(separator: ",") + "]"
    }

    private func run(_ store: Store, _ model: Model, sync: Bool = false) throws -> ImportResult {
        var options = ImportOptions(author: "t", context: "test", sync: sync)
        options.replayViews = false
        var selection = FeedSelection(model: model)
        selection.fetchLimits.deadline = FetchDuration(milliseconds: 10_000)
        return try ImportSession(store: store, model: model, options: options).run(try selection.inputsFromMappingURLs())
    }

    @Test func theLatestStoredValueIsTheNextRunsCursorAndTheSourceIsRecordedByItsTemplate() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Store(path: directory.path("s.sqlite"))
        let records = Mutex<[(String, String)]>([("a", "2024-02-01T10:00:00Z"), ("b", "2024-03-01T10:00:00Z")])
        let server = try TestHTTPServer { request in
            let since = URLComponents(string: request.uri)?.queryItems?.first { $0.name == "since" }?.value
            return .init(headers: [("Content-Type", "application/json")], text: Self.answer(records.withLock { $0 }, since: since))
        }
        defer { server.stop() }
        let model = try Self.model(port: server.port)

        let first = try run(store, model)
        #expect(first.totals.inserted == 2)
        #expect(server.requests.last?.uri == "/quakes?since=2024-01-01&limit=50", "the initial value while the store holds none")
        let template = "http://127.0.0.1:\(server.port)/quakes?since={latest}&limit=50"
        #expect(try store.read { snapshot in try snapshot.history.transactions(after: 0, through: 1, limit: nil) }.first?.sources == [template])
        #expect(try store.read { snapshot in try snapshot.sources.sourceState(url: template) }?.transactionNumber == 1)

        records.withLock { $0.append(("c", "2024-04-01T10:00:00Z")) }
        let second = try run(store, model)
        #expect(server.requests.last?.uri == "/quakes?since=2024-03-01T10:00:00&limit=50", "the latest time the store holds, as ISO 8601")
        #expect(second.totals.inserted == 1 && second.totals.unchanged == 1 && second.totals.deleted == 0)

        let third = try run(store, model)
        #expect(server.requests.last?.uri == "/quakes?since=2024-04-01T10:00:00&limit=50")
        #expect(third.totals.unchanged == 1 && third.transactionNumber == nil, "nothing new: no transaction")
        let fourth = try run(store, model)
        #expect(fourth.notModified && fourth.transactionNumber == nil, "the same answer for the same cursor is not modified")
        #expect(try store.read { snapshot in try snapshot.sources.sourceStates() }.count == 1, "one source state, under the template")

        let checked = try #require(try FeedSelection(model: model).inputsFromMappingURLs().first).downloaded(to: directory.url.path)
        SourceFetching.removeBodies(of: checked)
        #expect(server.requests.last?.uri == "/quakes?since=2024-01-01&limit=50", "check fetches with the initial value")

        let sync = #expect(throws: ImportError.self) { try run(store, model, sync: true) }
        #expect(sync?.exitStatus == ImporterSupport.ExitStatus.usage && sync?.description.contains("cannot sync") == true)
    }

    /// A look-back (`lag: 2d`): the run fetches from two days before the newest stored time, so a
    /// record the upstream revised inside that window is read again and updated, and the ones it
    /// left alone write nothing.
    @Test func aLookBackRereadsTheWindowBeforeTheCursor() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try Store(path: directory.path("s.sqlite"))
        let records = Mutex<[(String, String)]>([("a", "2024-02-27T10:00:00Z"), ("b", "2024-03-01T10:00:00Z")])
        let server = try TestHTTPServer { request in
            let since = URLComponents(string: request.uri)?.queryItems?.first { $0.name == "since" }?.value
            return .init(headers: [("Content-Type", "application/json")], text: Self.answer(records.withLock { $0 }, since: since))
        }
        defer { server.stop() }
        let model = try Self.model(port: server.port, lag: "2d")
        #expect(try run(store, model).totals.inserted == 2)
        #expect(server.requests.last?.uri == "/quakes?since=2024-01-01&limit=50", "the initial value is not moved")
        // The upstream re-times a (still before the window) and revises nothing else; b is re-read.
        records.withLock { $0 = [("a", "2024-02-28T09:00:00Z"), ("b", "2024-03-01T10:00:00Z"), ("c", "2024-03-02T08:00:00Z")] }
        let second = try run(store, model)
        #expect(server.requests.last?.uri == "/quakes?since=2024-02-28T10:00:00&limit=50", "two days before the newest stored time")
        #expect(second.totals.inserted == 1 && second.totals.unchanged == 1 && second.totals.updated == 0, "b re-read unchanged: \(second.totals)")
        let model2 = try Self.model(port: server.port, lag: "3d")
        let third = try run(store, model2)
        #expect(server.requests.last?.uri == "/quakes?since=2024-02-28T08:00:00&limit=50")
        #expect(third.totals.updated == 1 && third.totals.unchanged == 2, "a's revision inside the window is read: \(third.totals)")
    }

    @Test func aStoreThatMovedBetweenTheFetchAndTheTransactionWritesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.path("s.sqlite")
        let other = try directory.write("other.json", #"[{"id":"z","time":"2025-01-01T00:00:00Z"}]"#)
        let racing = Mutex(false)
        let modelBox = Mutex<Model?>(nil)
        let server = try TestHTTPServer { _ in
            if racing.withLock({ $0 }), let model = modelBox.withLock({ $0 }) {
                // Another run imports while this one's answer is on its way.
                var options = ImportOptions(author: "other", context: "race")
                options.replayViews = false
                _ = try? ImportSession(store: try Store(path: path), model: model, options: options)
                    .run([FeedInput(path: other, mapping: model.feeds[0])])
            }
            let extra = racing.withLock { $0 } ? #",{"id":"b","time":"2024-02-02T10:00:00Z"}"# : ""
            return .init(headers: [("Content-Type", "application/json")], text: #"[{"id":"a","time":"2024-02-01T10:00:00Z"}"# + extra + "]")
        }
        defer { server.stop() }
        let model = try Self.model(port: server.port, format: "date")
        modelBox.withLock { $0 = model }
        _ = try run(try Store(path: path), model)
        racing.withLock { $0 = true }
        let error = #expect(throws: ImportError.self) { try run(try Store(path: path), model) }
        #expect(error?.exitStatus == ImporterSupport.ExitStatus.locked, "75: run again")
        #expect(error?.description.contains("another run imported meanwhile") == true)
        #expect(server.requests.last?.uri == "/quakes?since=2024-02-01&limit=50", "format: date")
        #expect(try Store(path: path).lastTransactionNumber() == 2, "the other run's transaction only")
    }

    @Test func noValueAndNoInitialIsAnErrorAndTheModelChecksItsPlaceholders() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let model = try Self.model(port: 9, initial: nil)
        let error = #expect(throws: ImportError.self) { try run(try Store(path: directory.path("s.sqlite")), model) }
        #expect(error?.description.contains("holds no time yet") == true)
        let base = """
            entities:
            - {name: Quake, key: [code], attributes: [{name: code, type: text, required: true}]}
            feeds:
            - name: q
              format: json
              fields: [{attribute: code, field: id}]
            """
        let problems: [(String, String)] = [
            ("  url: http://x/?a={since}\n", "'{since}' has no value"),
            ("  url: http://x/?a={since}\n  url-values: {other: {max: code}}\n", "the url has no '{other}'"),
            ("  url: http://x/?a={since}\n  url-values: {since: {max: code, min: code}}\n", "exactly one of"),
            ("  url: http://x/?a={since}\n  url-values: {since: {max: depth}}\n", "'depth' is not an attribute"),
            ("  url: http://x/?a={since}\n  url-values: {since: {max: code, format: unix}}\n", "not one of: stored, date, iso8601"),
        ]
        for (yaml, message) in problems {
            let error = #expect(throws: ModelError.self) { try ModelFile.parse(base + "\n" + yaml, name: "m.yaml") }
            #expect(error?.description.contains(message) == true, "\(yaml): \(String(describing: error))")
        }
        let good = try ModelFile.parse(base + "\n  url: http://x/?a={since}\n  url-values: {since: {min: code, initial: A, format: date}}\n", name: "m.yaml")
        #expect(good.feeds[0].source?.values == [URLValue(name: "since", extreme: .min, attribute: "code", initial: "A", format: .date)])
        #expect(try ModelFile.parse(ModelFile.yaml(good), name: "again.yaml") == good, "url-values round-trip")
    }
}
