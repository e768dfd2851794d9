// The library's stages, re-exported: clients (the CLI, tests, the benchmark) import ImporterKit,
// the composition root that also links the SQLite backend.
@_exported import ImporterDelivery
@_exported import ImporterFeeds
@_exported import ImporterFetch
@_exported import ImporterHistory
@_exported import ImporterModel
@_exported import ImporterPipeline
@_exported import ImporterReports
@_exported import ImporterStore
@_exported import ImporterStoreSQLite
@_exported import ImporterStorePostgres
@_exported import ImporterSupport
@_exported import ImporterViews
