import ImporterTestSupport
import Foundation
import Testing

/// The layout rule of `Docs/ARCHITECTURE.md`: a target's files sit in folders by concern, none of
/// them a flat room of more than 20 Swift files.
@Suite struct SourceLayoutTests {
    static let limit = 20

    @Test func noSourceFolderHoldsMoreThan20SwiftFilesDirectly() throws {
        let sources = FunctionLengthTests.sources
        let folders = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
            .map { ($0 as NSString).deletingLastPathComponent }
        let counts = Dictionary(folders.map { ($0, 1) }, uniquingKeysWith: +)
        #expect(counts.count > 15)
        let crowded = counts.filter { $0.value > Self.limit }.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value) files" }
        #expect(crowded.isEmpty, "\(crowded)")
    }
}
