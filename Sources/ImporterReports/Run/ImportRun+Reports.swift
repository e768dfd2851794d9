import ImporterPipeline
import ImporterStore
import ImporterSupport

extension ImportRun {
    /// Runs the import and writes its report to `targets`, opened before anything is imported (a
    /// report file that cannot be written fails the run first); `sources` are the feeds as the
    /// report names them; refusals name their remedies in `words`.
    public func run(open: (_ temporaryPath: String?) throws -> Store, reportingTo targets: ReportTargets, sources: [String],
                    words: @escaping (Remedy) -> String = Remedy.plain) throws -> ImportResult {
        let dryRun = options.dryRun
        return try run(open: open) {
            let opened = try targets.open()
            return { result, store, snapshot in
                let content = try ReportContent(run: result, storePath: store.path, in: snapshot, sources: sources, dryRun: dryRun, words: words)
                try opened.write(content, store: store, in: snapshot)
            }
        }
    }
}
