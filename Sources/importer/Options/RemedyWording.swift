import ImporterKit

/// The command line's words for what the library says a user can do (`Remedy`) and for the report
/// options `ReportTargetsError` leaves unnamed: its flags and commands. Errors are printed through
/// `message(for:)`.
enum RemedyWording {
    /// `error`'s message as the command line says it.
    static func message(for error: any Error) -> String {
        if let error = error as? any RemedialError { return error.message(words) }
        if let error = error as? ReportTargetsError { return message(for: error) }
        return "\(error)"
    }

    static func words(_ remedy: Remedy) -> String {
        switch remedy {
        case .didNotWait: "--no-wait: did not wait"
        case .waitLonger: "--wait SECONDS waits longer"
        case .createOrNameStore: "run 'importer run' to create one, or pass --store"
        case .forcePurge: "add --force to purge anyway"
        case .boundPurge: "give --keep DAYS, or --before DATE|TOKEN --force"
        case .cascadeUndo: "pass --cascade to undo them too, newest first"
        case .chooseMappings: "give --mapping NAME, or --mapping once per mapping to read it with each in one transaction"
        case .chooseMappingOrFormat(let candidates): "give --mapping NAME (one of: \(candidates.joined(separator: ", "))) or --feed-format"
        case .rejectLimit(let limit): "--max-rejects \(limit)"
        case .syncMode: "--sync"
        case .allowEmptyFeed: "pass --allow-empty (with --max-delete 100%)"
        case .deleteLimit(let bound): "--max-delete \(bound)"
        case .raiseDeleteLimit: "pass --max-delete with a higher bound"
        case .nulledLimit(let bound): "--max-nulled \(bound)"
        case .raiseNulledLimit: "pass --max-nulled with a higher bound"
        case .temporaryDirectory: "--temp-dir DIR"
        case .updatedLimit(let bound): "--max-updated \(bound)"
        case .raiseUpdatedLimit: "pass --max-updated with a higher bound"
        case .allowUnframed: "--allow-unframed accepts them"
        case .bindParameter(let name): "give --param \(name)=VALUE"
        case .nameParameters: "name them (:name) and give --param name=VALUE"
        case .unusedParameter(let name): "--param \(name)"
        case .rebuildView(let name): "rebuild it: importer views rebuild \(name) (or importer replay --rebuild-expired)"
        case .resetConsumer(let name): "reset it: importer consumers reset \(name) --to beginning (it will see the kept history again) or --to now"
        case .listConsumers: "see importer consumers list"
        }
    }

    static func message(for error: ReportTargetsError) -> String {
        switch error {
        case .formatNotInferred(let path, let known):
            "--output \(path): give its --report FORMAT (the extension does not name one of \(known.joined(separator: ", ")))"
        case .standardOutputWithoutFormat:
            "--output -: give its --report FORMAT, or use --format FORMAT (standard output has no extension)"
        case .severalOnStandardOutput:
            "only one report can go to standard output: give an --output FILE to the others"
        case .standardOutputTaken(let format, let other):
            "--format \(format.rawValue) is the report on standard output, and --report \(other.rawValue) has no --output FILE: give it one"
        }
    }
}
