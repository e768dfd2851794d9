import Foundation

/// A GBFS-like station status of `parents` stations with five vehicle types each, written nested
/// (each station's types in its `vehicle_types_available` array) and flat (the stations as a JSON
/// array, their types as NDJSON lines with the station's id): the same rows, in two shapes.
/// `changed`: every 20th station's first type counts one more (5 % of the stations), and every
/// station lists its types rotated by one (a re-ordering, no change).
struct ChildFeeds {
    static let types = ["bike", "ebike", "cargo", "scooter", "tandem"]
    let parents: Int

    struct Paths {
        var nested: String
        var stations: String
        var vehicles: String
    }

    func paths(in directory: String, changed: Bool) -> Paths {
        let suffix = "\(parents)\(changed ? "-changed" : "")"
        return Paths(nested: "\(directory)/stations-nested-\(suffix).json", stations: "\(directory)/stations-flat-\(suffix).json",
                     vehicles: "\(directory)/vehicles-flat-\(suffix).ndjson")
    }

    /// Writes both shapes; returns their paths.
    func write(in directory: String, changed: Bool) throws -> Paths {
        let paths = paths(in: directory, changed: changed)
        let nested = try TextFileWriter(path: paths.nested), stations = try TextFileWriter(path: paths.stations), vehicles = try TextFileWriter(path: paths.vehicles)
        try nested.append(#"{"last_updated": 1732870000, "data": {"stations": ["#)
        try stations.append("[")
        for index in 0..<parents {
            let id = "s\(index)"
            let head = #"{"station_id": "\#(id)", "num_bikes_available": \#(index % 20), "last_reported": \#(1_732_869_000 + index % 1000)"#
            let order = (0..<5).map { (index + $0 + (changed ? 1 : 0)) % 5 }
            let children = order.map { type in
                let count = (index * 7 + type) % 13 + (changed && index % 20 == 0 && type == 0 ? 1 : 0)
                return (type: Self.types[type], count: count)
            }
            let separator = index == 0 ? "\n" : ",\n"
            let list = children.map { #"{"vehicle_type_id": "\#($0.type)", "count": \#($0.count)}"# }.joined(separator: ", ")
            try nested.append(separator + head + #", "vehicle_types_available": [\#(list)]}"#)
            try stations.append(separator + head + "}")
            for child in children {
                try vehicles.append(#"{"station_id": "\#(id)", "vehicle_type_id": "\#(child.type)", "count": \#(child.count)}"# + "\n")
            }
        }
        try nested.append("\n]}}\n")
        try stations.append("\n]\n")
        _ = try nested.close()
        _ = try stations.close()
        _ = try vehicles.close()
        return paths
    }

    /// The model of both shapes: Station with its StationVehicle children (mapping `nested`), or
    /// the two entities read flat (mappings `stations` and `vehicles`, chosen by extension).
    static func model(nested: Bool) -> String {
        let entities = """
            entities:
            - name: Station
              key: [station_id]
              attributes:
              - {name: station_id, type: text, required: true}
              - {name: num_bikes_available, type: integer}
              - {name: last_reported, type: datetime}
            \(nested ? "  relationships:\n  - {name: vehicles, entity: StationVehicle, records: /vehicle_types_available, key: [vehicle_type_id]}\n" : "")\
            - name: StationVehicle
              table: station_vehicle
              key: [station_id, vehicle_type_id]
              attributes:
              - {name: station_id, type: text, required: true}
              - {name: vehicle_type_id, type: text, required: true}
              - {name: count, type: integer, required: true}
            feeds:
            """
        let stationFields = """
              fields:
              - {attribute: station_id, field: station_id}
              - {attribute: num_bikes_available, field: num_bikes_available}
              - {attribute: last_reported, field: last_reported, format: epoch-s}
            """
        let vehicleFields = """
                - {attribute: vehicle_type_id, field: vehicle_type_id}
                - {attribute: count, field: count}
            """
        if nested {
            return entities + "\n- name: nested\n  entity: Station\n  format: json\n  records: /data/stations\n" + stationFields
                + "\n  children:\n  - relationship: vehicles\n    fields:\n" + vehicleFields + "\n"
        }
        return entities + "\n- name: stations\n  entity: Station\n  format: json\n" + stationFields
            + "\n- name: vehicles\n  entity: StationVehicle\n  format: ndjson\n  fields:\n  - {attribute: station_id, field: station_id}\n"
            + vehicleFields.replacingOccurrences(of: "    - ", with: "  - ") + "\n"
    }
}
