import Foundation
@testable import ImporterModel
import Testing

/// Relationships in a model file: read, checked, written back by `model show`, and the child
/// mappings derived from a feed's `children`.
@Suite struct RelationshipTests {
    static let text = """
        entities:
        - name: Station
          key: [station_id]
          attributes:
          - {name: station_id, type: text, required: true}
          relationships:
          - {name: vehicles, entity: Vehicle, records: /vehicle_types_available, key: [type], delete: deny}
        - name: Vehicle
          key: [station_id, type]
          attributes:
          - {name: station_id, type: text, required: true}
          - {name: type, type: text, required: true}
          - {name: count, type: integer}
        feeds:
        - name: status
          entity: Station
          format: json
          records: /data/stations
          fields:
          - {attribute: station_id, field: station_id, trim: true}
          children:
          - relationship: vehicles
            fields:
            - {attribute: type, field: vehicle_type_id}
            - {attribute: count, field: count}
        """

    @Test func readCheckedAndWrittenBack() throws {
        let model = try ModelFile.parse(Self.text, name: "gbfs.yaml")
        #expect(model.relationships == [Relationship(name: "vehicles", parent: "Station", child: "Vehicle", records: "/vehicle_types_available",
                                                     key: .attributes(["type"]), deleteRule: .deny)])
        #expect(try ModelFile.parse(ModelFile.yaml(model), name: "again.yaml") == model, "relationships and children round-trip")
    }

    /// The derived mapping reads the parent's key through the parent's own field (its transforms
    /// kept), then the child's fields.
    @Test func childFeedsReadTheParentsKeyFromTheParent() throws {
        let model = try ModelFile.parse(Self.text, name: "gbfs.yaml")
        let feed = try #require(model.feed(named: "status"))
        let child = try #require(model.childFeeds(of: feed).first)
        #expect(child.name == "status/vehicles" && child.entity == "Vehicle" && child.records == "/data/stations")
        #expect(child.childRecords == ChildRecords(path: "/vehicle_types_available", relationship: "vehicles", parentEntity: "Station"))
        #expect(child.fields.map(\.field) == ["../station_id", "vehicle_type_id", "count"])
        #expect(child.fields.first?.trim == true)
    }

    @Test func problemsAreNamed() throws {
        let cases = [
            ("key: [type], delete: deny", "key: [type], delete: later", "'later' is not one of: cascade, nullify, deny"),
            ("records: /vehicle_types_available", "records: vehicle_types_available", "is not a JSON pointer into the parent record"),
            ("entity: Vehicle, records", "entity: Bike, records", "entity 'Bike' is not declared"),
            ("- {attribute: count, field: count}", "- {attribute: station_id, field: station_id}", "'station_id' is not mapped here (it comes from the parent's key)"),
            ("- {attribute: type, field: vehicle_type_id}", "", "the key attribute 'type' of Vehicle is not mapped"),
            ("  key: [station_id, type]\n", "  key: [station_id, type]\n  drift: {attribute: station_id, tolerance: 1}\n", "a child entity cannot declare key drift: it follows its parent's"),
        ]
        for (from, to, message) in cases {
            #expect(throws: ModelError.self, "\(message)") { try ModelFile.parse(Self.text.replacingOccurrences(of: from, with: to), name: "m.yaml") }
            do {
                _ = try ModelFile.parse(Self.text.replacingOccurrences(of: from, with: to), name: "m.yaml")
            } catch {
                #expect("\(error)".contains(message), "\(error)")
            }
        }
    }
}
