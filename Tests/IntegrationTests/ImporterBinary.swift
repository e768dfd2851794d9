import ImporterTestSupport
import Foundation
import Testing

/// The built `importer` executable: `$IMPORTER_BINARY`, else next to the test bundle (SwiftPM puts
/// every product of the package in one directory).
let importerBinary: String = {
    if let path = ProcessInfo.processInfo.environment["IMPORTER_BINARY"], !path.isEmpty { return path }
    let testBundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var directory = testBundle.deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = directory.appendingPathComponent("importer").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    return repositoryRoot.appendingPathComponent(".build/debug/importer").path
}()

/// What a run of the binary did.
struct Execution {
    var status: Int32
    var stdout: String
    var stderr: String

    var json: Any? {
        try? JSONSerialization.jsonObject(with: Data(stdout.utf8))
    }
}

/// Runs `importer` with `arguments`, optional standard input and extra environment; `launcher`
/// (a command and its arguments, such as `setpriv … BINARY`) runs instead of the binary itself.
@discardableResult
func importer(_ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:], directory: URL? = nil, launcher: [String] = []) throws -> Execution {
    guard FileManager.default.isExecutableFile(atPath: importerBinary) else {
        throw ExecutionError.missingBinary(importerBinary)
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: launcher.first ?? importerBinary)
    process.arguments = launcher.dropFirst() + arguments
    var env = ProcessInfo.processInfo.environment
    env.removeValue(forKey: "IMPORTER_STORE")
    env.removeValue(forKey: "IMPORTER_AUTHOR")
    for (key, value) in environment { env[key] = value }
    process.environment = env
    if let directory { process.currentDirectoryURL = directory }
    // Standard error goes to a file and standard output to a pipe read to its end, so neither
    // can fill up and block the child.
    let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("importer-stderr-\(UUID().uuidString)")
    FileManager.default.createFile(atPath: errorFile.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: errorFile) }
    let errors = try FileHandle(forWritingTo: errorFile)
    let output = Pipe()
    process.standardOutput = output
    process.standardError = errors
    let input = Pipe()
    process.standardInput = stdin == nil ? FileHandle.nullDevice : input
    try process.run()
    try errors.close()
    if let stdin {
        input.fileHandleForWriting.write(stdin)
        try input.fileHandleForWriting.close()
    }
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let errorData = try Data(contentsOf: errorFile)
    return Execution(status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
                     stderr: String(decoding: errorData, as: UTF8.self))
}

enum ExecutionError: Error, CustomStringConvertible {
    case missingBinary(String)
    var description: String {
        switch self {
        case .missingBinary(let path): "the importer binary is not built at \(path) (run `swift build` first, or set IMPORTER_BINARY)"
        }
    }
}

