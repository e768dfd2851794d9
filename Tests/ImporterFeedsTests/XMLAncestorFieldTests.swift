import ImporterTestSupport
import Foundation
@testable import ImporterFeeds
import ImporterModel
import Testing

/// A record element's fields from its ancestors (`../@time`): ECB-style rates, where each rate's
/// day is an attribute of the element around it.
@Suite struct XMLAncestorFieldTests {
    static let mapping = FeedMapping(name: "ecb", entity: "Rate", format: .xml, records: "/gesmes:Envelope/e:Cube/e:Cube/e:Cube",
                                     namespaces: ["gesmes": "http://www.gesmes.org/xml/2002-08-01",
                                                  "e": "http://www.ecb.int/vocabulary/2002-08-01/eurofxref"],
                                     fields: [])

    /// Every record's requested fields as text (nil: absent).
    static func read(_ xml: String, fields: [String], readSize: Int = 1 << 16) throws -> [[String?]] {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let reader = try XMLRecordsReader(source: try ByteSource(path: try directory.write("rates.xml", xml)), mapping: mapping, readSize: readSize)
        _ = try reader.open(requesting: fields)
        var record = RawRecord(slotCount: fields.count)
        var rows: [[String?]] = []
        while try reader.next(into: &record) {
            rows.append(fields.indices.map { record.slots[$0].kind == .absent ? nil : record.text(of: $0) })
        }
        return rows
    }

    static func document(_ days: [(String?, [(String, String)])]) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
        <gesmes:subject>Reference rates</gesmes:subject>
        <Cube>
        """ + days.map { day, rates in
            "<Cube\(day.map { " time=\"\($0)\"" } ?? "")>" + rates.map { "<Cube currency=\"\($0.0)\" rate=\"\($0.1)\"/>" }.joined() + "</Cube>\n"
        }.joined() + "</Cube>\n</gesmes:Envelope>\n"
    }

    @Test(arguments: [1 << 16, 7])
    func eachRateTakesItsDayFromTheElementAroundIt(readSize: Int) throws {
        let xml = Self.document([("2025-12-02", [("USD", "1.1612"), ("JPY", "180.86")]), ("2025-12-01", [("USD", "1.1600")])])
        let rows = try Self.read(xml, fields: ["../@time", "@currency", "@rate"], readSize: readSize)
        #expect(rows == [["2025-12-02", "USD", "1.1612"], ["2025-12-02", "JPY", "180.86"], ["2025-12-01", "USD", "1.1600"]])
        // Two levels up: the outer <Cube> has no attribute, so the field is absent, not another's value.
        #expect(try Self.read(xml, fields: ["../../@time", "@currency"]).map { $0[0] } == [nil, nil, nil])
    }

    /// An ancestor without the attribute leaves the field absent in its records: never the value
    /// of the ancestor before it.
    @Test func anAncestorWithoutTheAttributeLeavesItAbsent() throws {
        let xml = Self.document([("2025-12-02", [("USD", "1.1612")]), (nil, [("USD", "1.2")]), ("2025-11-28", [("USD", "1.15")])])
        let rows = try Self.read(xml, fields: ["../@time", "@currency"])
        #expect(rows.map { $0[0] } == ["2025-12-02", nil, "2025-11-28"])
    }

    @Test func onlyAnAncestorsAttributeCanBeReadAndNotAboveTheRoot() throws {
        let namespaces = ["e": "urn:e"]
        for bad in ["../time", "../e:Cube/@time", "a/../@time", "..", "../@a[1]"] {
            #expect(throws: XMLPathError.self, "\(bad)") { try XMLPath.field(bad, namespaces: namespaces) }
        }
        let parsed = try XMLPath.field("../../@time", namespaces: namespaces)
        #expect(parsed.up == 2 && parsed.elements.isEmpty && parsed.attribute == XMLName(namespace: nil, localName: "time"))
        var mapping = Self.mapping
        mapping.fields = [FieldMapping(attribute: "day", field: "../../../../@time")]
        let problems = XMLPath.problems(in: mapping)
        #expect(problems.contains { $0.contains("climbs 4 levels from records 4 elements deep") }, "\(problems)")
        let error = #expect(throws: FeedError.self) {
            _ = try Self.read(Self.document([("2025-12-02", [("USD", "1")])]), fields: ["../../../../@time"])
        }
        #expect(error?.description.contains("climbs 4 levels") == true, "\(String(describing: error))")
    }
}
