import ArgumentParser
import Foundation
import ImporterKit

/// `--store`, shared by every command that opens a store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store's SQLite file (default: $IMPORTER_STORE, else importer.sqlite).", valueName: "path"))
    var store: String?

    @Option(name: .long, help: ArgumentHelp("Seconds to wait for another run's lock before failing with exit code 75.", valueName: "seconds"))
    var wait: Double = 5

    var path: String { store ?? Store.defaultPath() }

    func open(create: Bool) throws -> Store {
        var options = Store.Options(busyTimeoutMilliseconds: Int(wait * 1000), create: create, readOnly: false)
        options.create = create
        return try Store(path: path, options: options)
    }
}

extension ReportFormat: ExpressibleByArgument {}

/// Runs a command body, printing library errors on stderr and exiting with their documented code.
func runReportingErrors(_ body: () throws -> ExitStatus) throws {
    let status: ExitStatus
    do {
        status = try body()
    } catch let error as ExitCode {
        throw error
    } catch let error as ValidationError {
        throw error
    } catch {
        FileHandle.standardError.write(Data("importer: error: \(error)\n".utf8))
        throw ExitCode(ExitStatus.forError(error).rawValue)
    }
    if status != .success { throw ExitCode(status.rawValue) }
}
