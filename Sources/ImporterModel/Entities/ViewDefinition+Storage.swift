extension ViewDefinition {
    /// The columns of the view's table: the group columns, one per aggregate (an average keeps
    /// its running sum and count too), and `importer_rows`, the records in the group (the group's
    /// row goes when it reaches 0).
    public var storageColumns: [String] {
        groupBy + aggregates.flatMap(Self.storageColumns) + ["importer_rows"]
    }

    package static func storageColumns(_ aggregate: Aggregate) -> [String] {
        aggregate.function == .avg ? [aggregate.name, "importer_sum_\(aggregate.name)", "importer_count_\(aggregate.name)"] : [aggregate.name]
    }
}
