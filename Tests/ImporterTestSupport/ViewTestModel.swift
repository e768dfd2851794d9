import ImporterKit

/// The fireball model with views of every aggregate, over stored and derived attributes: what the
/// view tests of both backends replay and compare.
public enum ViewTestModel {
    public static let views: [ViewDefinition] = FireballModel.model.views + [
        ViewDefinition(name: "by_region_year", entity: "Fireball", groupBy: ["region", "year"], aggregates: [
            Aggregate(name: "count", function: .count),
            Aggregate(name: "with_altitude", function: .count, attribute: "altitude"),
            Aggregate(name: "energy_avg", function: .avg, attribute: "energy"),
            Aggregate(name: "energy_sum", function: .sum, attribute: "energy"),
            Aggregate(name: "impact_min", function: .min, attribute: "impact_energy"),
            Aggregate(name: "altitude_max", function: .max, attribute: "altitude"),
            Aggregate(name: "first_date", function: .min, attribute: "date"),
        ]),
        ViewDefinition(name: "by_latitude", entity: "Fireball", groupBy: ["latitude"], aggregates: [
            Aggregate(name: "energy_max", function: .max, attribute: "energy"),
        ]),
        // Aggregates over derived attributes (their before- and after-images are expressions too).
        ViewDefinition(name: "by_altitude_derived", entity: "Fireball", groupBy: ["altitude"], aggregates: [
            Aggregate(name: "year_sum", function: .sum, attribute: "year"),
            Aggregate(name: "year_avg", function: .avg, attribute: "year"),
            Aggregate(name: "region_max", function: .max, attribute: "region"),
            Aggregate(name: "region_count", function: .count, attribute: "region"),
        ]),
    ]

    public static let model = Model(entities: [FireballModel.entity], feeds: [FireballModel.apiFeed], views: views)
}
