import ImporterTestSupport
@testable import ImporterModel
import Testing

/// A URL value's look-back (`lag:`): what it reads, how it moves each kind of cursor, what a model
/// may not ask of it.
@Suite struct URLValueLagTests {
    @Test func durationsAndNumbers() {
        #expect(URLValueLag("30d") == .seconds(30 * 86_400) && URLValueLag("12h") == .seconds(43_200))
        #expect(URLValueLag("90m") == .seconds(5_400) && URLValueLag("45s") == .seconds(45))
        #expect(URLValueLag("7") == .amount(7) && URLValueLag("0.5") == .amount(0.5))
        for bad in ["", "-1d", "3w", "d", "-2", "1.5d", "nan"] { #expect(URLValueLag(bad) == nil, "\(bad)") }
        #expect(URLValueLag("30d")?.description == "30d" && URLValueLag("90m")?.description == "90m" && URLValueLag("7")?.description == "7")
    }

    @Test func aCursorMovesBackOrForwardForAMin() throws {
        let days = try #require(URLValueLag("2d"))
        #expect(days.shift(.text("2024-03-01"), type: .date, forward: false) == .text("2024-02-28"))
        #expect(days.shift(.text("2024-02-28"), type: .date, forward: true) == .text("2024-03-01"))
        #expect(days.shift(.text("2024-03-01 10:00:00.250"), type: .datetime, forward: false) == .text("2024-02-28 10:00:00.250"))
        #expect(URLValueLag("90m")?.shift(.text("2024-01-01 00:30:00"), type: .datetime, forward: false) == .text("2023-12-31 23:00:00"))
        #expect(URLValueLag("10")?.shift(.integer(100), type: .integer, forward: false) == .integer(90))
        #expect(URLValueLag("0.5")?.shift(.real(2), type: .real, forward: false) == .real(1.5))
        #expect(days.shift(.integer(3), type: .integer, forward: false) == nil, "a duration does not move a number")
    }

    @Test func aModelSaysWhichLagFitsWhichCursor() throws {
        func model(_ type: String, _ lag: String) throws -> Model {
            try ModelFile.parse("""
                entities:
                - name: E
                  key: [code]
                  attributes:
                  - {name: code, type: text, required: true}
                  - {name: at, type: \(type)}
                feeds:
                - name: f
                  format: json
                  url: "http://x/?since={since}"
                  url-values: {since: {max: at, initial: "0", lag: \(lag)}}
                  fields: [{attribute: code, field: id}, {attribute: at, field: at}]
                """, name: "m.yaml")
        }
        let good = try model("datetime", "12h")
        #expect(good.validate().isEmpty && good.feeds[0].source?.values.first?.lag == .seconds(43_200))
        #expect(try ModelFile.parse(ModelFile.yaml(good), name: "again.yaml") == good)
        for (type, lag, reason) in [("date", "12h", "a date moves by whole days"), ("integer", "2d", "give a number"),
                                    ("datetime", "5", "give a duration"), ("datetime", "soon", "is not a look-back")] {
            let error = #expect(throws: ModelError.self) { try model(type, lag) }
            #expect(error?.description.contains(reason) == true, "\(type) \(lag): \(String(describing: error))")
        }
    }
}
