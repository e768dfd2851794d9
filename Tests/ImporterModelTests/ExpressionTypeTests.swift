import ImporterTestSupport
@testable import ImporterModel
import Testing

/// `model check` knows what the date functions read: `date(count)` would return digits.
@Suite struct ExpressionTypeTests {
    static let types: [String: AttributeType] = [
        "time": .datetime, "day": .date, "count": .integer, "mag": .real, "name": .text, "flag": .boolean,
    ]

    private func problems(_ text: String) throws -> [String] {
        try ExpressionParser.parse(text).problems(types: Self.types)
    }

    @Test func dateFunctionsOfDatesPass() throws {
        for text in ["date(time)", "year(time)", "month(day)", "date(day)", "year(coalesce(time, day))",
                     "case when flag then year(time) else month(time) end", "date(null)"] {
            #expect(try problems(text) == [], "\(text)")
        }
    }

    @Test func dateFunctionsOfOtherValuesNameTheFunctionTheAttributeAndItsType() throws {
        #expect(try problems("date(count)") == ["date() reads a date or datetime, but attribute 'count' is integer"])
        #expect(try problems("year(mag)") == ["year() reads a date or datetime, but attribute 'mag' is real"])
        #expect(try problems("month(name)") == ["month() reads a date or datetime, but attribute 'name' is text"])
        #expect(try problems("date(flag)") == ["date() reads a date or datetime, but attribute 'flag' is boolean"])
        #expect(try problems("year(count + 1)") == ["year() reads a date or datetime, but its argument is integer"])
        #expect(try problems("date(upper(name))") == ["date() reads a date or datetime, but its argument is text"])
        #expect(try problems("year(coalesce(count, time))") == ["year() reads a date or datetime, but its argument is integer"])
        #expect(try problems("date('2020-03-06')") == ["date() reads a date or datetime, but its argument is text"])
        // Name-only checks (no types) stay as they were.
        #expect(try ExpressionParser.parse("date(count)").problems(attributes: ["count"]) == [])
    }

    @Test func aModelWithADateOfAnIntegerIsInvalid() {
        let entity = EntityDescription(
            name: "Quake", tableName: "quake",
            attributes: [AttributeDescription(name: "event", type: .text, isOptional: false), AttributeDescription(name: "time", type: .integer, isOptional: false)],
            uniqueKey: ["event"], tombstoneAttributes: [],
            derivedAttributes: [DerivedAttribute(name: "day", type: .date, expression: .function(.date, [.attribute("time")]))])
        #expect(entity.validate().contains("entity Quake: derived attribute 'day': date() reads a date or datetime, but attribute 'time' is integer"))
    }
}
