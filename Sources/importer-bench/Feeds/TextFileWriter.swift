import Foundation

/// A text file written streaming: appended text is buffered and written out past 1 MiB, so a feed
/// of any size holds one chunk in memory. Counts the bytes written.
final class TextFileWriter {
    private let file: FileHandle
    private var text = ""
    private(set) var written = 0

    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
            throw BenchError.io("cannot write \(path)")
        }
        self.file = file
    }

    func append(_ string: String) throws {
        text += string
        if text.utf8.count > 1 << 20 { try flush() }
    }

    private func flush() throws {
        let bytes = Data(text.utf8)
        try file.write(contentsOf: bytes)
        written += bytes.count
        text = ""
    }

    /// Writes what is left and closes the file; returns its size in bytes.
    func close() throws -> Int {
        try flush()
        try file.close()
        return written
    }
}
