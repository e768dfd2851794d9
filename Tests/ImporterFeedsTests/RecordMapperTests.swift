import ImporterTestSupport
import Foundation
@testable import ImporterKit
import Testing

/// Maps the rows of a fireball feed text; returns mapped values per record or the rejects.
private func mapAll(_ text: String, mapping: FeedMapping = FireballModel.apiFeed) throws -> (values: [[String: Value]], rejects: [Reject]) {
    let directory = try TemporaryDirectory()
    defer { directory.cleanup() }
    let path = try directory.write("feed.json", text)
    let reader = NASAColumnarReader(source: try ByteSource(path: path))
    var mapper = try RecordMapper(entity: FireballModel.entity, mapping: mapping)
    let header = try reader.open(requesting: mapper.requestedFields)
    try mapper.configure(header: header, sourceName: path)
    var batch = mapper.makeBatch(capacity: 16)
    var record = RawRecord(slotCount: mapper.requestedFields.count)
    var rejects: [Reject] = []
    while try reader.next(into: &record) {
        if let reject = mapper.map(record, into: &batch) { rejects.append(reject) }
    }
    let values = (0..<batch.count).map { index in
        Dictionary(uniqueKeysWithValues: batch.columns.enumerated().map { position, attribute in
            (FireballModel.entity.attributes[attribute].name, batch.publicValue(record: index, position: position))
        })
    }
    return (values, rejects)
}

@Suite struct RecordMapperTests {
    @Test func appliesSignsFromDirectionFields() throws {
        let (values, rejects) = try mapAll(fireballFeed([
            #"["2024-07-21 08:12:05","2.1","0.076","32.5","S","76.1","W","31.4","+18.3"]"#,
            #"["2024-09-04 16:39:40","4.5","0.15","18.0","N","122.9","E",null,null]"#,
        ]))
        #expect(rejects.isEmpty)
        #expect(values[0]["latitude"] == .real(-32.5))
        #expect(values[0]["longitude"] == .real(-76.1))
        #expect(values[0]["velocity"] == .real(18.3))
        #expect(values[1]["latitude"] == .real(18.0))
        #expect(values[1]["longitude"] == .real(122.9))
        #expect(values[1]["altitude"] == .null)
        #expect(values[0]["date"] == .text("2024-07-21 08:12:05"))
    }

    @Test func keepsNullLocationsNull() throws {
        let (values, _) = try mapAll(fireballFeed([#"["2024-03-02 11:05:20","3.2","0.11",null,null,null,null,"45.0","21.9"]"#]))
        #expect(values[0]["latitude"] == .null)
        #expect(values[0]["longitude"] == .null)
    }

    @Test func onlySuppliedAttributesAreColumns() throws {
        let (values, _) = try mapAll(fireballFeed([#"["2024-03-02 11:05:20","3.2","0.11",null,null,null,null,"45.0","21.9"]"#]))
        #expect(values[0]["vx"] == nil)
        #expect(values[0].count == 7)
        let (withVelocity, _) = try mapAll(try String(contentsOfFile: sample("fireball-vel-comp.json"), encoding: .utf8))
        #expect(withVelocity[0]["vx"] == .real(-7.9))
        #expect(withVelocity[0]["vy"] == .real(9.4))
        #expect(withVelocity[1]["vz"] == .null)
    }

    @Test func rejectsBadValuesWithTheirLocation() throws {
        let text = fireballFeed([
            #"["2024-07-21 08:12:05","2.1","0.076","32.5","S","76.1","W","31.4","18.3"]"#,
            #"["2024-07-22 08:12:05","two","0.076","32.5","S","76.1","W","31.4","18.3"]"#,
            #"["2024-07-23 08:12:05","2.1","0.076","32.5","X","76.1","W","31.4","18.3"]"#,
            #"["2024-07-24 08:12:05","2.1","0.076","32.5",null,"76.1","W","31.4","18.3"]"#,
            #"["2024-02-30 08:12:05","2.1","0.076","32.5","N","76.1","W","31.4","18.3"]"#,
            #"[null,"2.1","0.076","32.5","N","76.1","W","31.4","18.3"]"#,
        ])
        let (values, rejects) = try mapAll(text)
        #expect(values.count == 1)
        #expect(rejects.map(\.attribute) == ["energy", "latitude", "latitude", "date", "date"])
        #expect(rejects.map(\.location.recordIndex) == [1, 2, 3, 4, 5])
        #expect(rejects[0].rawValue == "two")
        #expect(rejects[0].reason == "expected a number")
        #expect(rejects[0].location.line == 2)
        #expect(rejects[0].location.column == 24)
        #expect(rejects[1].reason.contains("'X'"))
        #expect(rejects[2].reason.contains("null"))
        #expect(rejects[3].reason.contains("datetime"))
        #expect(rejects[4].reason == "a required attribute is null")
    }

    @Test func refusesAFeedWithoutTheKeyOrASignField() throws {
        #expect(throws: FeedError.self) { _ = try mapAll(fireballFeed([#"["2.1"]"#], fields: #"["energy"]"#)) }
        #expect(throws: FeedError.self) { _ = try mapAll(fireballFeed([#"["2024-07-21 08:12:05","32.5"]"#], fields: #"["date","lat"]"#)) }
    }

    @Test func appliesScaleSuffixSignsTrimAndDefaults() throws {
        let entity = FireballModel.entity
        let mapping = FeedMapping(name: "custom", entity: entity.name, format: .nasaColumnar, fields: [
            FieldMapping(attribute: "date", field: "when", trim: true, format: "%d/%m/%Y %H:%M", timeZone: "+01:00"),
            FieldMapping(attribute: "energy", field: "joules", scale: 1e-10),
            FieldMapping(attribute: "latitude", field: "lat", emptyIsNull: true, sign: SignRule(negative: ["S"], positive: ["N"])),
            FieldMapping(attribute: "altitude", field: "alt", defaultValue: .real(-1)),
            FieldMapping(attribute: "velocity", constant: .real(20)),
        ])
        let text = #"{"count":2,"fields":["when","joules","lat","alt"],"data":[[" 21/07/2024 09:12 ","2.0e10","24.0S",null],["22/07/2024 09:12","3e10","",null]]}"#
        let (values, rejects) = try mapAll(text, mapping: mapping)
        #expect(rejects.isEmpty)
        #expect(values[0]["date"] == .text("2024-07-21 08:12:00"))
        #expect(values[0]["energy"] == .real(2.0))
        #expect(values[0]["latitude"] == .real(-24.0))
        #expect(values[0]["altitude"] == .real(-1))
        #expect(values[0]["velocity"] == .real(20))
        #expect(values[1]["latitude"] == .null)
    }
}
