// The library's stages, re-exported: clients (the CLI, tests, the benchmark) import ImporterKit.
@_exported import ImporterFeeds
@_exported import ImporterModel
@_exported import ImporterSupport
