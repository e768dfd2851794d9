import ImporterHistory

/// A store's gauges (`importer status --format prometheus`), for a scrape or a textfile: records
/// per entity, history size, its oldest and newest transactions, the purged range, the consumers'
/// lags and the rejects kept. Samples carry no `job` label: the scrape or the collector adds it.
package struct StoreMetrics: Sendable {
    package var status: StoreStatus
    package var consumerLags: [ConsumerLag]

    package init(status: StoreStatus, consumerLags: [ConsumerLag]) {
        self.status = status
        self.consumerLags = consumerLags
    }

    package var families: [MetricFamily] {
        let history = status.history
        var records = MetricFamily(name: "importer_store_records", help: "Records stored per entity.")
        for entity in status.entities { records.add([.init("entity", entity.name)], Double(entity.records)) }
        func gauge(_ name: String, _ help: String, _ value: Double) -> MetricFamily {
            MetricFamily(name: name, help: help, samples: [.init([], value)])
        }
        var families = [
            MetricFamily(name: "importer_store_info", help: "The store's id and schema version (always 1).",
                         samples: [.init([.init("store_id", status.storeID), .init("schema_version", String(status.schemaVersion))], 1)]),
            records,
            gauge("importer_store_size_bytes", "The store's size on disk (SQLite: the file, without its write-ahead log).", Double(status.bytes)),
            gauge("importer_store_history_transactions", "History transactions kept.", Double(history.transactions)),
            gauge("importer_store_history_changes", "History changes kept.", Double(history.changes)),
            gauge("importer_store_history_oldest_transaction", "The number of the oldest kept history transaction (0: none).", Double(history.oldest?.number ?? 0)),
            gauge("importer_store_history_newest_transaction", "The number of the newest history transaction, the head (0: none).", Double(history.newest?.number ?? 0)),
            gauge("importer_store_history_purged_through_transaction", "History of transactions up to this number was purged (0: none).", Double(history.purgedThrough)),
            gauge("importer_store_rejects", "Rejected records kept in the store.", Double(status.rejects)),
        ]
        if let newest = history.newest.flatMap({ ConsumerLag.unixSeconds(of: $0.timestamp) }) {
            families.append(gauge("importer_store_history_newest_timestamp_seconds", "When the newest history transaction was committed (Unix time).", newest))
        }
        return families + RunMetrics.lagFamilies(consumerLags, leading: [])
    }
}
