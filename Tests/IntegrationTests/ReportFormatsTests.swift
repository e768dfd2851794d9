import ImporterTestSupport
import Foundation
import Testing

/// The Markdown, CSV and HTML reports: the first two read back to exactly the changes of the JSON
/// history; the HTML renders in headless Chromium without console errors, also for 100,000 changes.
///
/// The browser checks need Debian's `chromium` (`apt-get install --no-install-recommends chromium`);
/// without it they are skipped with a message. `$CHROMIUM` names another binary.
@Suite struct ReportFormatsTests {
    // MARK: Markdown and CSV read back to the JSON history

    @Test func markdownAndCSVListExactlyTheChangesOfTheJSONHistory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        #expect(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        #expect(try importer(["run", "--store", store, "--sync", sample("fireball-2026.json")]).status == 0)
        let expected = try Self.jsonHistory(store: store)
        #expect(expected.count == 18)
        #expect(expected.filter { $0.type == "update" }.count == 3)
        #expect(expected.filter { $0.type == "delete" }.count == 2)

        let markdown = try importer(["history", "--store", store, "--format", "markdown"])
        #expect(markdown.status == 0, "\(markdown.stderr)")
        let fromMarkdown = try MarkdownChanges.parse(markdown.stdout)
        #expect(fromMarkdown.more == nil)
        Self.expectSame(fromMarkdown.changes, expected, "markdown")
        #expect(markdown.stdout.contains("| **total** | 13 | 3 | 2 | 5 | 0 | 0 |"), "\(markdown.stdout)")
        #expect(markdown.stdout.contains("| 2 | Fireball | date=2024-07-21 08:12:05 | update | energy: 2.1 → 2.4; impact_energy: 0.076 → 0.085 |"))

        let csv = try importer(["history", "--store", store, "--format", "csv"])
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(csv.stdout.hasPrefix("token,transaction,entity,key,type,attribute,old,new\r\n"))
        let fromCSV = try CSVChanges.parse(csv.stdout)
        Self.expectSame(fromCSV.map(\.change), expected, "csv")
        let tokens = try Self.jsonTokens(store: store)
        #expect(fromCSV.allSatisfy { tokens[$0.change.transaction] == $0.token })

        // The run's own report lists the same changes as its transaction in the history.
        try importer(["run", "--store", store, "--sync", sample("fireball-2024.json")])
        let run = try importer(["run", "--store", store, "--sync", "--format", "markdown", sample("fireball-2026.json")])
        #expect(run.status == 0, "\(run.stderr)")
        let runChanges = try MarkdownChanges.parse(run.stdout).changes
        let lastTransaction = try Self.jsonHistory(store: store).filter { $0.transaction == 4 }
        #expect(!runChanges.isEmpty)
        Self.expectSame(runChanges, lastTransaction, "run markdown")
        #expect(run.stdout.contains("## Views"))
        let runCSV = try importer(["history", "--store", store, "--format", "csv", "--after", tokens[1] ?? ""])
        #expect(try CSVChanges.parse(runCSV.stdout).map(\.change) == (try Self.jsonHistory(store: store).filter { $0.transaction > 1 }))
    }

    /// Text with every character the formats escape, in keys too (a composite key), updated,
    /// deleted and inserted: both formats still read back exactly, and the HTML stays escaped.
    @Test func trickyTextReadsBackExactlyAndIsEscapedInHTML() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let model = directory.path("notes.yaml")
        try Self.notesModel.write(toFile: model, atomically: true, encoding: .utf8)
        let tricky = ["pipe | in the middle", "back\\slash \\| and \\\\", "line\nbreak", "  leading and trailing  ", "null", "", "42", "3.5",
                      "a; b", "x → y", "say \"hi\"", "<script>alert('x')</script> & &amp; &#39;", "*bold* _under_ `code` [link](x) ~~s~~",
                      "tab\there", "cr\rhere", "&#32; <br>", "=", "ü ñ 🚀", " ", "1e5", "true", "-", "a,b\r\n\"c\""]
        var first: [[String: Any]] = []
        var second: [[String: Any]] = []
        for (index, text) in tricky.enumerated() {
            let kind = index % 3 == 0 ? text : "k"
            first.append(["number": index, "kind": kind, "body": text, "label": "old " + text, "score": Double(index) / 10])
            guard index % 4 != 3 else { continue }
            second.append(["number": index, "kind": kind, "body": index % 2 == 1 ? String(text.reversed()) : text,
                           "label": index % 5 == 0 ? NSNull() : "new " + text, "score": index % 2 == 1 ? Double(index) / 10 : NSNull()])
        }
        second.append(["number": 100, "kind": "| new ;", "body": "inserted\nwith | pipes", "label": "", "score": 1e-7])
        for (name, records) in [("a.ndjson", first), ("b.ndjson", second)] {
            let lines = try records.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
            try (lines.joined(separator: "\n") + "\n").write(toFile: directory.path(name), atomically: true, encoding: .utf8)
        }
        #expect(try importer(["run", "--store", store, "--model", model, directory.path("a.ndjson")]).status == 0)
        // Half the scores become null and most labels change on purpose: past the null-storm and
        // mass-update guards' default bounds.
        let sync = try importer(["run", "--store", store, "--model", model, "--sync", "--max-nulled", "100%", "--max-updated", "100%", directory.path("b.ndjson")])
        #expect(sync.status == 0, "\(sync.stderr)")
        let expected = try Self.jsonHistory(store: store)
        #expect(expected.filter { $0.transaction == 1 }.count == tricky.count)
        #expect(expected.filter { $0.type == "delete" }.count == 5)
        #expect(expected.filter { $0.transaction == 2 && $0.type == "insert" }.count == 1)
        #expect(expected.filter { $0.type == "update" }.count > 10)

        let markdown = try importer(["history", "--store", store, "--format", "markdown"])
        #expect(markdown.status == 0, "\(markdown.stderr)")
        Self.expectSame(try MarkdownChanges.parse(markdown.stdout).changes, expected, "markdown")
        // Every changes-table row is one line with exactly five unescaped cells.
        for line in markdown.stdout.split(separator: "\n", omittingEmptySubsequences: false) where line.hasPrefix("| 1 | Note |") || line.hasPrefix("| 2 | Note |") {
            #expect(MarkdownChanges.cells(String(line)).count == 5, "\(line)")
        }
        let csv = try importer(["history", "--store", store, "--format", "csv"])
        #expect(csv.status == 0, "\(csv.stderr)")
        Self.expectSame(try CSVChanges.parse(csv.stdout).map(\.change), expected, "csv")
        #expect(csv.stdout.contains(#","body",,"""#), "an inserted empty string is a quoted empty field")
        #expect(csv.stdout.contains(#","label",,"""#))
        #expect(csv.stdout.contains(#","label","old ",null"#), "NULL is the bare word null")

        let html = try importer(["history", "--store", store, "--format", "html"])
        #expect(html.status == 0, "\(html.stderr)")
        #expect(!html.stdout.contains("<script"))
        #expect(html.stdout.contains("&amp;#32; &lt;br&gt;"))
        #expect(html.stdout.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &amp;amp; &amp;#39;"))
        #expect(html.stdout.contains("say &quot;hi&quot;"))
        try Self.checkSelfContained(html.stdout)
    }

    // MARK: HTML in a headless browser

    @Test func htmlRendersInHeadlessChromiumWithoutConsoleErrors() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        #expect(try importer(["run", "--store", store, sample("fireball-2024.json")]).status == 0)
        let run = try importer(["run", "--store", store, "--sync", "--format", "html", sample("fireball-2026.json")])
        #expect(run.status == 0, "\(run.stderr)")
        let html = run.stdout
        try Self.checkSelfContained(html)
        #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
        #expect(html.contains("<meta charset=\"utf-8\">"))
        #expect(html.contains("<title>importer run: transaction 2 (s.sqlite from fireball-2026.json)</title>"))
        #expect(html.contains("All <data value=\"8\">8</data> changes"))
        #expect(html.components(separatedBy: "<svg class=\"chart\"").count - 1 == 3, "changes by type, fireball_by_region, fireball_by_year")
        #expect(html.contains("<title id=\"chart-changes-title\">Changes by type per entity</title>"))
        #expect(html.contains("fireball_by_year: count and energy_sum per year"))
        #expect(html.contains("<del>2.1</del><span class=\"arrow\">→</span><ins>2.4</ins>"))
        let path = directory.path("report.html")
        try html.write(toFile: path, atomically: true, encoding: .utf8)
        let noChanges = try importer(["run", "--store", store, "--format", "html", sample("fireball-2026.json")])
        #expect(noChanges.stdout.contains("<p class=\"empty\">No changes</p>"))
        try Self.checkSelfContained(noChanges.stdout)

        guard let chromium = Chromium.binary else { try Test.cancel(Comment(rawValue: Chromium.missing)) }
        try Chromium.checkTheConsoleCheckWorks(chromium, in: directory)

        let screenshot = directory.path("report.png")
        let render = try Chromium.run(chromium, ["--enable-logging=stderr", "--v=1", "--screenshot=\(screenshot)", "--window-size=1280,2000",
                                                 Chromium.fileURL(path)], in: directory, timeout: 60)
        #expect(render.status == 0, "\(render.stderr.suffix(2_000))")
        #expect(Chromium.consoleMessages(render.stderr).isEmpty, "console: \(Chromium.consoleMessages(render.stderr))")
        // Nothing but the report itself is loaded (no image, stylesheet, font or script).
        #expect(Chromium.loadedFiles(render.stderr) == [Chromium.fileURL(path)])
        let png = try PNGInfo(path: screenshot)
        #expect(png.width == 1280 && png.height == 2000)
        #expect(png.bytes > 40_000, "a page of text and charts, not a blank one (\(png.bytes) bytes)")

        let dom = try Chromium.run(chromium, ["--enable-logging=stderr", "--dump-dom", Chromium.fileURL(path)], in: directory, timeout: 60)
        #expect(dom.status == 0)
        #expect(Chromium.consoleMessages(dom.stderr).isEmpty, "console: \(Chromium.consoleMessages(dom.stderr))")
        #expect(dom.stdout.contains("<table class=\"changes\">"))
        #expect(dom.stdout.components(separatedBy: "<tr class=\"update\">").count - 1 == 3)
        #expect(dom.stdout.components(separatedBy: "<tr class=\"delete\">").count - 1 == 2)
        #expect(dom.stdout.components(separatedBy: "<tr class=\"insert\">").count - 1 == 3)
        #expect(dom.stdout.components(separatedBy: "<rect ").count - 1 >= 3 + 5 + 8)
    }

    @Test func aReportOfAHundredThousandChangesStaysSmallAndRendersQuickly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = directory.path("s.sqlite")
        let feed = directory.path("large.json")
        let records = 100_000
        try Self.apiFeed(records: records).write(to: URL(fileURLWithPath: feed))
        // Both reports of the one run, each written to its file (`--report FORMAT --output FILE`).
        let path = directory.path("large.html")
        let run = try importer(["run", "--store", store, "--report", "html", "--output", path, "--report", "markdown", "--output", directory.path("large.md"), feed])
        #expect(run.status == 0, "\(run.stderr)")
        let html = try String(contentsOfFile: path, encoding: .utf8)
        let size = html.utf8.count
        #expect(size < 2_000_000, "the HTML report of \(records) changes is \(size) bytes")
        #expect(html.contains("<data value=\"100000\">100,000</data> changes"))
        #expect(html.contains("<data value=\"99000\">99,000</data> more changes not shown"))
        #expect(html.components(separatedBy: "<tr class=\"insert\">").count - 1 == 1_000)
        try Self.checkSelfContained(html)

        let markdown = try String(contentsOfFile: directory.path("large.md"), encoding: .utf8)
        let parsed = try MarkdownChanges.parse(markdown)
        #expect(parsed.changes.count == 1_000)
        #expect(parsed.more == 99_000)
        #expect(markdown.hasSuffix("\n… and 99000 more changes\n"))
        #expect(markdown.utf8.count < 1_000_000)
        let history = try importer(["history", "--store", store, "--format", "markdown"])
        #expect(history.stdout.hasSuffix("\n… and 99000 more changes\n"))

        guard let chromium = Chromium.binary else { try Test.cancel(Comment(rawValue: Chromium.missing)) }
        let screenshot = directory.path("large.png")
        let started = Date()
        let render = try Chromium.run(chromium, ["--enable-logging=stderr", "--screenshot=\(screenshot)", "--window-size=1280,2000",
                                                 Chromium.fileURL(path)], in: directory, timeout: 60)
        let seconds = Date().timeIntervalSince(started)
        #expect(render.status == 0, "\(render.stderr.suffix(2_000))")
        #expect(seconds < 60, "Chromium took \(seconds) s")
        #expect(Chromium.consoleMessages(render.stderr).isEmpty, "console: \(Chromium.consoleMessages(render.stderr))")
        #expect(try PNGInfo(path: screenshot).bytes > 40_000)
    }

    // MARK: Helpers

    /// No script, no external URL, the document's skeleton.
    static func checkSelfContained(_ html: String) throws {
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<html lang=\"en\">") && html.contains("<meta charset=\"utf-8\">") && html.contains("<title>"))
        #expect(!html.contains("<script"))
        #expect(!html.contains("http://") && !html.contains("https://") && !html.contains("//fonts.") && !html.contains("@import") && !html.contains("url("))
        #expect(html.hasSuffix("</html>\n"))
    }

    static let notesModel = """
        entities:
        - name: Note
          table: note
          key: [number, kind]
          tombstone: [number, kind, body, score]
          attributes:
          - {name: number, type: integer, required: true}
          - {name: kind, type: text, required: true}
          - {name: body, type: text}
          - {name: label, type: text}
          - {name: score, type: real}
        feeds:
        - name: notes
          entity: Note
          format: ndjson
          fields:
          - {attribute: number, field: number}
          - {attribute: kind, field: kind}
          - {attribute: body, field: body}
          - {attribute: label, field: label}
          - {attribute: score, field: score}
        """

    /// A feed of `records` fireballs in the API's columnar shape, one per hour from 2000 on.
    static func apiFeed(records: Int) -> Data {
        var text = #"{"signature": {"source": "NASA/JPL Fireball Data API", "version": "1.2"}, "count": "\#(records)", "#
        text += #""fields": ["date", "energy", "impact-e", "lat", "lat-dir", "lon", "lon-dir", "alt", "vel"], "data": ["#
        let start = Date(timeIntervalSince1970: 946_684_800)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        var seed: UInt64 = 42
        func next(_ range: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(range))
        }
        for index in 0..<records {
            if index > 0 { text += "," }
            let date = formatter.string(from: start.addingTimeInterval(Double(index) * 3_600 + Double(index % 60)))
            let located = next(10) > 1
            let lat = located ? "\"\(next(90)).\(next(10))\", \"\(next(2) == 0 ? "N" : "S")\"" : "null, null"
            let lon = located ? "\"\(next(180)).\(next(10))\", \"\(next(2) == 0 ? "E" : "W")\"" : "null, null"
            let altitude = next(4) == 0 ? "null" : "\"\(20 + next(50)).\(next(10))\""
            text += "\n[\"\(date)\", \"\(1 + next(40)).\(next(10))\", \"0.\(next(900) + 10)\", \(lat), \(lon), \(altitude), \"\(11 + next(30)).\(next(10))\"]"
        }
        text += "\n]}\n"
        return Data(text.utf8)
    }

    /// The changes of `importer history --format json`, as the reports list them.
    static func jsonHistory(store: String) throws -> [ReportedChange] {
        let history = try importer(["history", "--store", store, "--format", "json"])
        #expect(history.status == 0, "\(history.stderr)")
        let root = try JSONDecoder().decode(JSONValue.self, from: Data(history.stdout.utf8))
        var changes: [ReportedChange] = []
        for transaction in root["transactions"]?.array ?? [] {
            guard case .integer(let number)? = transaction["number"]?.scalar else { throw ParseError("transaction without a number") }
            for change in transaction["changes"]?.array ?? [] {
                let type = change["type"]?.scalar?.textValue ?? ""
                var fields: [String: ReportedChange.Field] = [:]
                switch type {
                case "insert":
                    for (name, value) in change["values"]?.object ?? [:] where value.scalar != .null { fields[name] = .init(old: nil, new: value.scalar) }
                case "update":
                    for (name, pair) in change["changed"]?.object ?? [:] { fields[name] = .init(old: pair["old"]?.scalar, new: pair["new"]?.scalar) }
                case "delete":
                    for (name, value) in change["tombstone"]?.object ?? [:] { fields[name] = .init(old: value.scalar, new: nil) }
                default: throw ParseError("unknown change type \(type)")
                }
                changes.append(ReportedChange(transaction: number, entity: change["entity"]?.scalar?.textValue ?? "", type: type,
                                              key: (change["key"]?.object ?? [:]).compactMapValues(\.scalar), fields: fields))
            }
        }
        return changes
    }

    static func jsonTokens(store: String) throws -> [Int64: String] {
        let history = try importer(["history", "--store", store, "--format", "json"])
        let root = try JSONDecoder().decode(JSONValue.self, from: Data(history.stdout.utf8))
        var tokens: [Int64: String] = [:]
        for transaction in root["transactions"]?.array ?? [] {
            if case .integer(let number)? = transaction["number"]?.scalar, let token = transaction["token"]?.scalar?.textValue { tokens[number] = token }
        }
        return tokens
    }

    static func expectSame(_ found: [ReportedChange], _ expected: [ReportedChange], _ format: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(found.count == expected.count, "\(format): \(found.count) changes, JSON has \(expected.count)", sourceLocation: sourceLocation)
        for (index, (a, b)) in zip(found, expected).enumerated() where a != b {
            Issue.record("\(format) change \(index):\n  \(a)\nJSON:\n  \(b)", sourceLocation: sourceLocation)
        }
    }
}

// MARK: - The changes, format-independent

/// A value as the reports write it.
enum ReportedValue: Hashable, CustomStringConvertible {
    case null, integer(Int64), real(Double), text(String)

    /// A Markdown/CSV literal: `null`, a number, a JSON string literal, or bare text.
    init(literal: String) throws {
        if literal.hasPrefix("\"") {
            guard let text = try JSONSerialization.jsonObject(with: Data(literal.utf8), options: .fragmentsAllowed) as? String else {
                throw ParseError("not a JSON string: \(literal)")
            }
            self = .text(text)
        } else if literal == "null" {
            self = .null
        } else if let number = ReportedValue(number: literal) {
            self = number
        } else {
            self = .text(literal)
        }
    }

    init?(number: String) {
        if let integer = Int64(number) { self = .integer(integer) } else if let real = Double(number) { self = .real(real) } else { return nil }
    }

    var textValue: String? { if case .text(let text) = self { text } else { nil } }

    var description: String {
        switch self {
        case .null: "null"
        case .integer(let n): "\(n)"
        case .real(let d): "\(d)"
        case .text(let t): "\"\(t.debugDescription.dropFirst().dropLast())\""
        }
    }
}

struct ReportedChange: Equatable, CustomStringConvertible {
    struct Field: Equatable {
        var old: ReportedValue?
        var new: ReportedValue?
    }

    var transaction: Int64
    var entity: String
    var type: String
    var key: [String: ReportedValue]
    /// Inserts: the non-null values (new); updates: old and new; deletes: the tombstone (old).
    var fields: [String: Field]

    var description: String {
        let fieldText = fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.old?.description ?? "-") → \($0.value.new?.description ?? "-")" }
        return "#\(transaction) \(entity) \(type) \(key.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }) {\(fieldText.joined(separator: "; "))}"
    }
}

struct ParseError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// JSON with integers kept apart from reals (as the reports write them).
enum JSONValue: Decodable {
    case scalarValue(ReportedValue), bool(Bool), array([JSONValue]), object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .scalarValue(.null) }
        else if let text = try? container.decode(String.self) { self = .scalarValue(.text(text)) }
        else if let integer = try? container.decode(Int64.self) { self = .scalarValue(.integer(integer)) }
        else if let real = try? container.decode(Double.self) { self = .scalarValue(.real(real)) }
        else if let flag = try? container.decode(Bool.self) { self = .bool(flag) }
        else if let array = try? container.decode([JSONValue].self) { self = .array(array) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    subscript(key: String) -> JSONValue? { if case .object(let members) = self { members[key] } else { nil } }
    var array: [JSONValue]? { if case .array(let items) = self { items } else { nil } }
    var object: [String: JSONValue]? { if case .object(let members) = self { members } else { nil } }
    var scalar: ReportedValue? { if case .scalarValue(let value) = self { value } else { nil } }
}

// MARK: - A Markdown reader

enum MarkdownChanges {
    /// The rows of the `## Changes` table, and N of "… and N more changes".
    static func parse(_ markdown: String) throws -> (changes: [ReportedChange], more: Int?) {
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: "## Changes") else { throw ParseError("no changes section") }
        var changes: [ReportedChange] = []
        var more: Int?
        var index = start + 1
        while index < lines.count, !lines[index].hasPrefix("## ") {
            let line = lines[index]
            index += 1
            if line.hasPrefix("… and ") {
                more = Int(line.dropFirst("… and ".count).prefix { $0.isNumber })
                continue
            }
            guard line.hasPrefix("|") else { continue }
            let cells = Self.cells(line)
            guard cells.count == 5 else { throw ParseError("a changes row without 5 cells: \(line)") }
            if cells[0] == "transaction" || cells[0].hasPrefix("---") { continue }
            let values = cells.map(unescape)
            guard let transaction = Int64(values[0]) else { throw ParseError("bad transaction: \(line)") }
            // A re-keyed update is marked in its type cell.
            let type = values[3] == "update (re-keyed)" ? "update" : values[3]
            var fields: [String: ReportedChange.Field] = [:]
            if type == "update" {
                for part in try splitTopLevel(values[4], on: "; ") {
                    guard let colon = part.range(of: ": ") else { throw ParseError("bad update: \(part)") }
                    let sides = try splitTopLevel(String(part[colon.upperBound...]), on: " → ")
                    guard sides.count == 2 else { throw ParseError("bad update: \(part)") }
                    fields[String(part[..<colon.lowerBound])] = .init(old: try ReportedValue(literal: sides[0]), new: try ReportedValue(literal: sides[1]))
                }
            } else {
                for (name, value) in try pairs(values[4], separator: "; ") {
                    fields[name] = type == "insert" ? .init(old: nil, new: value) : .init(old: value, new: nil)
                }
            }
            changes.append(ReportedChange(transaction: transaction, entity: values[1], type: type,
                                          key: Dictionary(try pairs(values[2], separator: "; "), uniquingKeysWith: { a, _ in a }), fields: fields))
        }
        return (changes, more)
    }

    /// A table row's cells, split on unescaped `|`, trimmed, still escaped.
    static func cells(_ line: String) -> [String] {
        var cells: [String] = []
        var current = ""
        var escaped = false
        for character in line {
            if escaped { current.append(character); escaped = false; continue }
            if character == "\\" { current.append(character); escaped = true; continue }
            if character == "|" { cells.append(current); current = ""; continue }
            current.append(character)
        }
        cells.append(current)
        return cells.dropFirst().dropLast().map { $0.trimmingCharacters(in: .init(charactersIn: " ")) }
    }

    /// Undoes the cell escapes: `\x` → x, `<br>` → line feed, `&#N;` → the character N.
    static func unescape(_ cell: String) -> String {
        var result = ""
        var scalars = Substring(cell).unicodeScalars[...]
        while let scalar = scalars.first {
            scalars = scalars.dropFirst()
            if scalar == "\\", let next = scalars.first {
                result.unicodeScalars.append(next)
                scalars = scalars.dropFirst()
            } else if scalar == "<", String(String.UnicodeScalarView(scalars.prefix(3))) == "br>" {
                result += "\n"
                scalars = scalars.dropFirst(3)
            } else if scalar == "&", scalars.first == "#", let end = scalars.firstIndex(of: ";"),
                      let code = UInt32(String(String.UnicodeScalarView(scalars[scalars.index(after: scalars.startIndex)..<end]))),
                      let decoded = Unicode.Scalar(code) {
                result.unicodeScalars.append(decoded)
                scalars = scalars[scalars.index(after: end)...]
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `name=value` pairs separated by `separator` (outside JSON string literals).
    static func pairs(_ text: String, separator: String) throws -> [(String, ReportedValue)] {
        guard !text.isEmpty else { return [] }
        return try splitTopLevel(text, on: separator).map { part in
            guard let equals = part.firstIndex(of: "=") else { throw ParseError("not a name=value pair: \(part)") }
            return (String(part[..<equals]), try ReportedValue(literal: String(part[part.index(after: equals)...])))
        }
    }

    /// `text` split on `separator` where it is not inside a JSON string literal.
    static func splitTopLevel(_ text: String, on separator: String) throws -> [String] {
        var parts: [String] = []
        var current = ""
        var inString = false
        var escaped = false
        var rest = Substring(text)
        while let character = rest.first {
            if !inString && rest.hasPrefix(separator) {
                parts.append(current)
                current = ""
                rest = rest.dropFirst(separator.count)
                continue
            }
            rest = rest.dropFirst()
            current.append(character)
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
            } else if character == "\"" {
                // Bare text never holds a quote: one outside a string starts a JSON string literal.
                inString = true
            }
        }
        if inString { throw ParseError("unterminated string in \(text)") }
        parts.append(current)
        return parts
    }
}

// MARK: - A CSV reader (RFC 4180)

enum CSVChanges {
    struct Field: Equatable {
        var text: String
        var quoted: Bool
    }

    static func records(_ csv: String) throws -> [[Field]] {
        var records: [[Field]] = []
        var record: [Field] = []
        var field = ""
        var quoted = false
        var inQuotes = false
        var scalars = Substring(csv).unicodeScalars[...]
        func endField() { record.append(Field(text: field, quoted: quoted)); field = ""; quoted = false }
        while let scalar = scalars.first {
            scalars = scalars.dropFirst()
            if inQuotes {
                if scalar == "\"" {
                    if scalars.first == "\"" { field += "\""; scalars = scalars.dropFirst() } else { inQuotes = false }
                } else {
                    field.unicodeScalars.append(scalar)
                }
            } else if scalar == "\"" {
                guard field.isEmpty && !quoted else { throw ParseError("a quote inside an unquoted field") }
                inQuotes = true
                quoted = true
            } else if scalar == "," {
                endField()
            } else if scalar == "\r" && scalars.first == "\n" {
                scalars = scalars.dropFirst()
                endField()
                records.append(record)
                record = []
            } else {
                guard !quoted else { throw ParseError("text after a closing quote") }
                field.unicodeScalars.append(scalar)
            }
        }
        if inQuotes { throw ParseError("unterminated quoted field") }
        if !field.isEmpty || quoted || !record.isEmpty { throw ParseError("the last record does not end with CRLF") }
        return records
    }

    /// A typed field: quoted → text; `null`; a number; nil when empty and unquoted.
    static func value(_ field: Field) throws -> ReportedValue? {
        if field.quoted { return .text(field.text) }
        if field.text.isEmpty { return nil }
        if field.text == "null" { return .null }
        guard let number = ReportedValue(number: field.text) else { throw ParseError("unquoted text: \(field.text)") }
        return number
    }

    /// The changes: consecutive rows of one (transaction, entity, key, type) form one change.
    static func parse(_ csv: String) throws -> [(token: String, change: ReportedChange)] {
        let records = try records(csv)
        guard records.first?.map(\.text) == ["token", "transaction", "entity", "key", "type", "attribute", "old", "new"] else {
            throw ParseError("bad header")
        }
        var changes: [(token: String, change: ReportedChange)] = []
        var last: [Field] = []
        for record in records.dropFirst() {
            guard record.count == 8 else { throw ParseError("a row of \(record.count) fields") }
            guard record[0].quoted, !record[1].quoted, record[2].quoted, record[3].quoted, record[4].quoted,
                  let transaction = Int64(record[1].text) else { throw ParseError("bad row \(record)") }
            if Array(record[0..<5]) != last {
                last = Array(record[0..<5])
                let key = Dictionary(try MarkdownChanges.pairs(record[3].text, separator: ";"), uniquingKeysWith: { a, _ in a })
                changes.append((record[0].text, ReportedChange(transaction: transaction, entity: record[2].text, type: record[4].text, key: key, fields: [:])))
            }
            guard record[5].quoted else {
                guard record[5].text.isEmpty, record[6].text.isEmpty, record[7].text.isEmpty else { throw ParseError("an unquoted attribute") }
                continue
            }
            let old = try value(record[6]), new = try value(record[7])
            switch record[4].text {
            case "insert": guard old == nil, new != nil else { throw ParseError("an insert row with an old value") }
            case "delete": guard old != nil, new == nil else { throw ParseError("a delete row with a new value") }
            default: guard old != nil, new != nil else { throw ParseError("an update row without old and new") }
            }
            changes[changes.count - 1].change.fields[record[5].text] = .init(old: old, new: new)
        }
        return changes
    }
}

// MARK: - Chromium

enum Chromium {
    static let missing = "chromium is not installed (or $CHROMIUM is not executable): the browser checks are skipped "
        + "(apt-get install --no-install-recommends chromium; CI installs it)"

    /// `$CHROMIUM`, else `chromium` on the PATH.
    static let binary: String? = {
        if let path = ProcessInfo.processInfo.environment["CHROMIUM"], !path.isEmpty {
            return FileManager.default.isExecutableFile(atPath: path) ? path : nil
        }
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return directories.map { "\($0)/chromium" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    static func fileURL(_ path: String) -> String { URL(fileURLWithPath: path).absoluteString }

    /// Runs headless Chromium with its own profile, killed after `timeout` seconds.
    static func run(_ binary: String, _ arguments: [String], in directory: TemporaryDirectory, timeout: TimeInterval) throws -> Execution {
        let profile = directory.path("chromium-profile-\(UUID().uuidString)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars", "--no-first-run",
                             "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
                             "--disable-extensions", "--disable-sync", "--user-data-dir=\(profile)"] + arguments
        let outputFile = directory.path("chromium-\(UUID().uuidString).out")
        let errorFile = directory.path("chromium-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: outputFile, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputFile))
        let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: errorFile))
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        try process.run()
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            finished.wait()
            Issue.record("chromium did not finish within \(timeout) s")
        }
        try output.close()
        try errors.close()
        return Execution(status: process.terminationStatus,
                         stdout: String(decoding: try Data(contentsOf: URL(fileURLWithPath: outputFile)), as: UTF8.self),
                         stderr: String(decoding: try Data(contentsOf: URL(fileURLWithPath: errorFile)), as: UTF8.self))
    }

    /// Console messages (logs, errors, uncaught exceptions) from `--enable-logging=stderr`: Chromium
    /// logs each as `[…:INFO:CONSOLE:line] "message", source: url (line)`, whatever its level.
    static func consoleMessages(_ log: String) -> [String] {
        log.split(separator: "\n").filter { $0.contains(":CONSOLE") || $0.contains("Uncaught") }.map(String.init)
    }

    /// The file URLs the page loaded (`--v=1` logs each).
    static func loadedFiles(_ log: String) -> [String] {
        log.split(separator: "\n").compactMap { line in
            line.range(of: "FileURLLoader::Start: ").map { String(line[$0.upperBound...]).trimmingCharacters(in: .whitespaces) }
        }
    }

    /// The console check must see a page's errors: a page with a deliberate one is caught.
    static func checkTheConsoleCheckWorks(_ binary: String, in directory: TemporaryDirectory) throws {
        let path = directory.path("broken.html")
        try """
            <!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>broken</title><link rel="icon" href="data:,"></head>
            <body><script>console.error("deliberate"); notDefinedAnywhere();</script></body></html>
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let run = try run(binary, ["--enable-logging=stderr", "--v=1", "--dump-dom", fileURL(path)], in: directory, timeout: 60)
        let messages = consoleMessages(run.stderr)
        #expect(messages.contains { $0.contains("deliberate") }, "the console check no longer sees console.error: \(run.stderr.suffix(2_000))")
        #expect(messages.contains { $0.contains("Uncaught ReferenceError") }, "the console check no longer sees uncaught exceptions")
        #expect(loadedFiles(run.stderr) == [fileURL(path)], "the load check no longer sees file loads")
    }
}

/// A PNG's size in bytes and its dimensions (from the IHDR chunk).
struct PNGInfo {
    var bytes: Int
    var width: Int
    var height: Int

    init(path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard data.count > 24, data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { throw ParseError("\(path) is not a PNG") }
        func integer(_ offset: Int) -> Int { data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        bytes = data.count
        width = integer(16)
        height = integer(20)
    }
}
