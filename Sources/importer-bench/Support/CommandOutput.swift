import Foundation

/// Runs a helper program of the bench (initdb, pg_ctl, psql) to its end and returns what it wrote
/// on standard output; a failure throws with what it wrote on standard error. Output goes to files
/// beside `scratch`, never to pipes: `pg_ctl start` leaves a server behind that inherits them, and a
/// pipe would never reach end of file.
enum CommandOutput {
    static func run(_ executable: String, _ arguments: [String], scratch: String) throws -> String {
        let output = scratch + ".out"
        let errors = scratch + ".err"
        defer {
            try? FileManager.default.removeItem(atPath: output)
            try? FileManager.default.removeItem(atPath: errors)
        }
        let m = try ProcessRunner.run(executable, arguments, stdout: output, stderr: errors)
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard m.status == 0 else {
            let message = ((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            let name = URL(fileURLWithPath: executable).lastPathComponent
            throw BenchError.failed("\(name) \(arguments.joined(separator: " ")) exited with \(m.status): \(message)")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
