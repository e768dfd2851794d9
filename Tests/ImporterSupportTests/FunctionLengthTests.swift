import ImporterTestSupport
import Foundation
import Testing

/// The house rule "no function over ~80 lines", checked over `Sources/`: each `func`, `init` or
/// `subscript` body, from its declaration line to its closing brace (braces inside string literals
/// on one line ignored), is at most 80 lines.
@Suite struct FunctionLengthTests {
    static let limit = 80
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")
    static let declarationPattern = (#"^\s*(@\w+(\([^)]*\))?\s+)*((public|private|fileprivate|internal|package|static|final|override|mutating|nonisolated|convenience|required)\s+)*(func\s+\w|init[?!]?\s*[(<]|subscript\s*\()"#)

    /// Lines of each function body longer than `limit` in `text`, as (first line, length).
    static func longFunctions(in text: String, limit: Int = limit) -> [(Int, Int)] {
        let declaration = try! Regex(declarationPattern)
        let literal = try! Regex(#""(?:[^"\\]|\\.)*""#)
        let lines = text.components(separatedBy: "\n")
        var found: [(Int, Int)] = []
        for (index, line) in lines.enumerated() where line.firstMatch(of: declaration) != nil {
            var depth = 0
            var opened = false
            var end = index
            scan: while end < lines.count, opened || end < index + 15 {
                let code = lines[end].replacing(literal, with: "\"\"")
                for character in code {
                    if character == "{" { depth += 1; opened = true }
                    if character == "}" { depth -= 1 }
                }
                if opened && depth <= 0 { break scan }
                end += 1
            }
            if opened, end - index + 1 > limit { found.append((index + 1, end - index + 1)) }
        }
        return found
    }

    @Test func noFunctionIsLongerThan80Lines() throws {
        let files = try #require(FileManager.default.enumerator(atPath: Self.sources.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count > 50)
        var long: [String] = []
        for file in files {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
            long += Self.longFunctions(in: text).map { "\(file):\($0.0): \($0.1) lines" }
        }
        #expect(long.isEmpty, "\(long.joined(separator: "\n"))")
    }

    /// The import pipeline reads as a script of named phases: none of its functions is over 40 lines.
    @Test func noPipelineFunctionIsLongerThan40Lines() throws {
        let pipeline = Self.sources.appendingPathComponent("ImporterPipeline")
        let files = try #require(FileManager.default.enumerator(atPath: pipeline.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count > 20)
        var long: [String] = []
        for file in files {
            let text = try String(contentsOf: pipeline.appendingPathComponent(file), encoding: .utf8)
            long += Self.longFunctions(in: text, limit: 40).map { "\(file):\($0.0): \($0.1) lines" }
        }
        #expect(long.isEmpty, "\(long.joined(separator: "\n"))")
    }

    @Test func theCheckFindsALongFunction() {
        let body = (0..<81).map { "    let x\($0) = \"{\"" }.joined(separator: "\n")
        #expect(Self.longFunctions(in: "func long() {\n\(body)\n}\nfunc short() {\n}\n").map(\.1) == [83])
    }
}
