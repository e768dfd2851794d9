import Foundation
import ImporterKit

/// Shell completion of names the store holds (views, consumers): the store is the one the words
/// typed so far name with `--store`, else `$IMPORTER_STORE`, else `importer.sqlite`. It is
/// opened read-only; any failure completes nothing.
enum StoreNames {
    /// The names of the store's derived views that start with `prefix`.
    @Sendable static func views(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        names(words, prefix: prefix) { snapshot in try snapshot.allViews().map(\.name) }
    }

    /// The names of the store's consumers (external ones and views) that start with `prefix`.
    @Sendable static func consumers(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        names(words, prefix: prefix) { snapshot in try snapshot.allConsumers().map(\.name) }
    }

    /// The names of the store's external consumers that start with `prefix`.
    @Sendable static func externalConsumers(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        names(words, prefix: prefix) { snapshot in try snapshot.allConsumers().filter { $0.kind == .external }.map(\.name) }
    }

    private static func names(_ words: [String], prefix: String, _ read: (StoreSnapshot) throws -> [String]) -> [String] {
        var path = Store.defaultPath()
        for (index, word) in words.enumerated() {
            if word == "--store", index + 1 < words.count { path = words[index + 1] }
            if word.hasPrefix("--store=") { path = String(word.dropFirst("--store=".count)) }
        }
        guard !Store.isPostgres(path), let store = try? Store(path: path, options: Store.Options(busyTimeoutMilliseconds: 0, create: false, readOnly: true)),
              let names = try? store.read({ (snapshot: StoreSnapshot) throws -> [String] in try read(snapshot) }) else { return [] }
        return names.filter { $0.hasPrefix(prefix) }.sorted()
    }
}
