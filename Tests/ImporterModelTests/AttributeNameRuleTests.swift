import ImporterTestSupport
import ImporterModel
import Testing

private typealias Expression = ImporterModel.Expression

/// Attribute names are any printable text a feed may use, within the bytes that keep every
/// identifier derived from them unique in PostgreSQL; expressions reach them quoted.
@Suite struct AttributeNameRuleTests {
    func entity(attributes names: [String], derived: [DerivedAttribute] = []) -> EntityDescription {
        EntityDescription(name: "Thing", tableName: "thing",
                          attributes: [AttributeDescription(name: "key", type: .integer, isOptional: false)]
                            + names.map { AttributeDescription(name: $0, type: .text, isOptional: true) },
                          uniqueKey: ["key"], tombstoneAttributes: ["key"], derivedAttributes: derived)
    }

    @Test func feedNamesAreValidAttributeNames() {
        let names = ["type", "changed", "record_id", "change_id", "transaction_number", "select", "order", "Mixed Case", "depth km",
                     "Tiefe_ü", "距離", "old.type", "it's \"quoted\"", "case", "null", "1st", "a;b", String(repeating: "é", count: 25)]
        #expect(entity(attributes: names).validate() == [])
    }

    @Test func unusableAttributeNamesAreRefusedWithTheirReason() {
        let cases: [(String, String)] = [
            ("", "empty name"),
            ("a\u{0}b", "unprintable character U+0000"),
            ("tab\there", "unprintable character U+0009"),
            ("a,b", "contains a comma"),
            (" padded", "begins or ends with white space"),
            ("importer_x", "uses the prefix importer_"),
            ("ID", "is reserved"),
            (String(repeating: "x", count: 51), "is 51 bytes long; an attribute name may have at most 50 bytes"),
            (String(repeating: "ü", count: 26), "is 52 bytes long"),
        ]
        for (name, reason) in cases {
            let problems = entity(attributes: [name]).validate()
            #expect(problems.contains { $0.contains(reason) }, "\(name.debugDescription): \(problems)")
        }
        #expect(entity(attributes: [String(repeating: "x", count: 50)]).validate() == [])
        #expect(entity(attributes: ["Mag", "mag"]).validate().contains("entity Thing: attribute 'mag' is declared twice"))
    }

    /// Every identifier derived from a name of the longest allowed length fits in 63 bytes.
    @Test func derivedIdentifiersFitPostgreSQL() {
        #expect("importer_old.".utf8.count + SQLIdentifier.Limit.attribute == 63)
        #expect("importer_change_".utf8.count + SQLIdentifier.Limit.table + "_record".utf8.count == 63)
        #expect("importer_count_".utf8.count + SQLIdentifier.Limit.aggregate == 63)
        #expect("importer_group_".utf8.count + SQLIdentifier.Limit.view == 63)
        var long = entity(attributes: [])
        long.tableName = String(repeating: "t", count: SQLIdentifier.Limit.table + 1)
        #expect(long.validate().contains { $0.contains("is longer than 40 bytes") })
    }

    @Test func quotedAttributeNamesParseAndPrintBack() throws {
        let cases: [(String, Expression)] = [
            (#""depth km" > 10"#, .binary(.greater, .attribute("depth km"), .literal(.integer(10)))),
            (#""select" || "order""#, .binary(.concatenate, .attribute("select"), .attribute("order"))),
            (#""say ""hi""""#, .attribute(#"say "hi""#)),
            (#""case" is null"#, .isNull(.attribute("case"))),
            ("Tiefe_ü + 距離", .binary(.add, .attribute("Tiefe_ü"), .attribute("距離"))),
            (#""plain""#, .attribute("plain")),
        ]
        for (text, expected) in cases {
            let parsed = try ExpressionParser.parse(text)
            #expect(parsed == expected, "\(text)")
            #expect(try ExpressionParser.parse(parsed.text) == parsed, "\(parsed.text)")
        }
        #expect(Expression.attribute("depth km").text == #""depth km""#)
        #expect(Expression.attribute("select").text == "select", "not a keyword of the expression language")
        #expect(Expression.attribute("case").text == #""case""#)
        #expect(Expression.attribute("NULL").text == #""NULL""#)
        #expect(Expression.attribute(#"a"b"#).text == #""a""b""#)
        #expect(Expression.attribute("Tiefe_ü").text == "Tiefe_ü")
        #expect(Expression.attribute("year").text == "year")
        #expect(throws: ExpressionParser.Failure.self) { try ExpressionParser.parse(#""open"#) }
        #expect(throws: ExpressionParser.Failure.self) { try ExpressionParser.parse(#""f"(1)"#) }
    }

    @Test func derivedAttributesReachQuotedNames() {
        let derived = DerivedAttribute(name: "deep", type: .integer, expression: .binary(.greater, .attribute("depth km"), .literal(.integer(10))))
        #expect(entity(attributes: ["depth km"], derived: [derived]).validate() == [])
    }
}
