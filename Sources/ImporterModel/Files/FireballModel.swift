/// The built-in model of the NASA/JPL fireball catalogue (see FIREBALL-FEED.md).
public enum FireballModel {
    public static let entity = EntityDescription(
        name: "Fireball",
        tableName: "fireball",
        attributes: [
            AttributeDescription(name: "date", type: .datetime, isOptional: false, documentation: "time of peak brightness, UTC"),
            AttributeDescription(name: "energy", type: .real, documentation: "total radiated energy, 10^10 J"),
            AttributeDescription(name: "impact_energy", type: .real, documentation: "calculated total impact energy, kt"),
            AttributeDescription(name: "latitude", type: .real, documentation: "degrees, south negative"),
            AttributeDescription(name: "longitude", type: .real, documentation: "degrees, west negative"),
            AttributeDescription(name: "altitude", type: .real, documentation: "altitude at peak brightness, km"),
            AttributeDescription(name: "velocity", type: .real, documentation: "velocity at peak brightness, km/s"),
            AttributeDescription(name: "vx", type: .real, documentation: "pre-entry velocity, Earth-centred x, km/s"),
            AttributeDescription(name: "vy", type: .real, documentation: "pre-entry velocity, Earth-centred y, km/s"),
            AttributeDescription(name: "vz", type: .real, documentation: "pre-entry velocity, Earth-centred z, km/s"),
        ],
        uniqueKey: ["date"],
        tombstoneAttributes: ["date", "energy", "impact_energy", "latitude", "longitude"],
        derivedAttributes: [
            DerivedAttribute(name: "year", type: .integer, expression: .function(.year, [.attribute("date")]),
                             documentation: "the UTC year of date"),
            DerivedAttribute(
                name: "region", type: .text,
                expression: .when([
                    Expression.Branch(.binary(.or, .isNull(.attribute("latitude")), .isNull(.attribute("longitude"))), .literal(.text("unknown"))),
                ], otherwise: .binary(.concatenate,
                    .when([Expression.Branch(.binary(.greaterOrEqual, .attribute("latitude"), .literal(.integer(0))), .literal(.text("N")))], otherwise: .literal(.text("S"))),
                    .when([Expression.Branch(.binary(.greaterOrEqual, .attribute("longitude"), .literal(.integer(0))), .literal(.text("E")))], otherwise: .literal(.text("W"))))),
                documentation: "hemisphere pair: NE, NW, SE, SW, or unknown without a location"),
        ],
        // NASA re-times events, usually by a second: a moved timestamp is the same event.
        drift: KeyDrift(attribute: "date", tolerance: 1)
    )

    /// Fireballs per year: how many, their total radiated energy, the largest impact energy, and
    /// how many have a location.
    public static let byYear = ViewDefinition(
        name: "fireball_by_year", entity: "Fireball", groupBy: ["year"],
        aggregates: [
            Aggregate(name: "count", function: .count),
            Aggregate(name: "energy_sum", function: .sum, attribute: "energy"),
            Aggregate(name: "impact_energy_max", function: .max, attribute: "impact_energy"),
            Aggregate(name: "located", function: .count, attribute: "latitude"),
        ],
        documentation: "per year of date: count, total energy (10^10 J), largest impact energy (kt), count with a location")

    /// Fireballs per hemisphere pair: how many, and the total and largest impact energy.
    public static let byRegion = ViewDefinition(
        name: "fireball_by_region", entity: "Fireball", groupBy: ["region"],
        aggregates: [
            Aggregate(name: "count", function: .count),
            Aggregate(name: "impact_energy_sum", function: .sum, attribute: "impact_energy"),
            Aggregate(name: "impact_energy_max", function: .max, attribute: "impact_energy"),
        ],
        documentation: "per hemisphere pair (NE, NW, SE, SW, unknown): count, total and largest impact energy (kt)")

    /// The fireball API's JSON (`fireball.api`), versions 1.x.
    public static let apiFeed = FeedMapping(
        name: "fireball-api",
        entity: "Fireball",
        format: .nasaColumnar,
        fields: [
            FieldMapping(attribute: "date", field: "date", format: "%Y-%m-%d %H:%M:%S", timeZone: "UTC"),
            FieldMapping(attribute: "energy", field: "energy"),
            FieldMapping(attribute: "impact_energy", field: "impact-e"),
            FieldMapping(attribute: "latitude", field: "lat", sign: SignRule(field: "lat-dir", negative: ["S"], positive: ["N"])),
            FieldMapping(attribute: "longitude", field: "lon", sign: SignRule(field: "lon-dir", negative: ["W"], positive: ["E"])),
            FieldMapping(attribute: "altitude", field: "alt"),
            FieldMapping(attribute: "velocity", field: "vel"),
            FieldMapping(attribute: "vx", field: "vx"),
            FieldMapping(attribute: "vy", field: "vy"),
            FieldMapping(attribute: "vz", field: "vz"),
        ]
    )

    public static let model = Model(entities: [entity], feeds: [apiFeed], views: [byYear, byRegion])
}
