import Foundation
import ImporterTestSupport
import Testing

/// What `Docs/ARCHITECTURE.md` claims of the layout, checked against `Sources/`: every target is
/// listed, and each imports only stages before it in the diagram (none above the store a backend).
@Suite struct ArchitectureTests {
    /// The stages in the diagram's order, from the bottom up.
    static let stages = ["ImporterSupport", "ImporterModel", "ImporterFeeds", "ImporterFetch", "ImporterKeyOrder", "ImporterStore", "ImporterStoreSQL",
                         "ImporterStoreSQLite", "ImporterStorePostgres", "ImporterHistory", "ImporterViews", "ImporterPipeline",
                         "ImporterReports", "ImporterDelivery", "ImporterMetrics", "ImporterKit", "importer"]
    static let backends: Set = ["ImporterStoreSQL", "ImporterStoreSQLite", "ImporterStorePostgres"]
    static let sources = repositoryRoot.appendingPathComponent("Sources")

    static func imports(of target: String) throws -> Set<String> {
        let directory = sources.appendingPathComponent(target)
        let files = try #require(FileManager.default.enumerator(atPath: directory.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        var names: Set<String> = []
        for file in files {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                if let index = words.firstIndex(of: "import"), index + 1 < words.count, words[..<index].allSatisfy({ $0.hasPrefix("@") }) {
                    names.insert(String(words[index + 1]))
                }
            }
        }
        return names
    }

    @Test func everyTargetIsInTheLayout() throws {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("Docs/ARCHITECTURE.md"), encoding: .utf8)
        let targets = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).filter { !$0.hasPrefix(".") }
        #expect(targets.count >= 19)
        for target in targets {
            #expect(text.contains("Sources/\(target)/") || text.contains(", \(target)") || text.contains("Sources/\(target),"), "\(target) is not in the layout")
        }
        for stage in Self.stages { #expect(targets.contains(stage) && text.contains(stage), "\(stage)") }
    }

    @Test func eachStageImportsOnlyTheStagesBeforeIt() throws {
        for (position, stage) in Self.stages.enumerated() {
            let before = Set(Self.stages[..<position])
            let stages = try Self.imports(of: stage).filter { Self.stages.contains($0) }
            #expect(stages.isSubset(of: before), "\(stage) imports \(stages.subtracting(before).sorted())")
            if position > Self.stages.firstIndex(of: "ImporterStorePostgres") ?? 0, stage != "ImporterKit", stage != "importer" {
                #expect(stages.isDisjoint(with: Self.backends), "\(stage) imports a backend: \(stages.intersection(Self.backends).sorted())")
            }
        }
    }

    /// What the product exports is public (the stages ImporterKit re-exports: the store handle, the
    /// pipeline, history, views, reports); the backends, the sort and the metrics are reached only
    /// inside the package (`Store.open`, the command line), so nothing of them is public.
    @Test func backendsAndInternalsArePackageOnly() throws {
        for target in ["ImporterStoreSQL", "ImporterStoreSQLite", "ImporterStorePostgres", "ImporterKeyOrder", "ImporterMetrics"] {
            let directory = Self.sources.appendingPathComponent(target)
            let files = try #require(FileManager.default.enumerator(atPath: directory.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
            for file in files {
                let lines = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8).components(separatedBy: "\n")
                for (index, line) in lines.enumerated() where line.split(separator: " ").contains("public") && !line.contains("//") {
                    Issue.record("\(target)/\(file):\(index + 1) is public: \(line)")
                }
            }
        }
    }

    /// The write path is the backend's: an import's writing role is a feed writer and little more.
    @Test func importWritingHasAtMostSixRequirements() throws {
        let text = try String(contentsOf: Self.sources.appendingPathComponent("ImporterStore/Import/ImportTransaction.swift"), encoding: .utf8)
        let body = try #require(text.components(separatedBy: "public protocol ImportWriting").dropFirst().first?.components(separatedBy: "\n}").first)
        let requirements = body.split(separator: "\n").filter { line in
            let code = line.trimmingCharacters(in: .whitespaces)
            return code.hasPrefix("func ") || code.hasPrefix("var ") || code.hasPrefix("associatedtype ")
        }
        #expect(requirements.count >= 3 && requirements.count <= 6, "\(requirements)")
    }

    /// Ownership crosses threads where the compiler can check it (`sending`, `WorkerThread`); an
    /// `@unchecked Sendable` is the exception, at most three, each stating why it is safe.
    @Test func atMostThreeUncheckedSendablesEachWithItsProof() throws {
        let files = try #require(FileManager.default.enumerator(atPath: Self.sources.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        var found: [String] = []
        for file in files {
            let lines = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8).components(separatedBy: "\n")
            for (index, line) in lines.enumerated() where line.contains("@unchecked Sendable") && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                found.append("\(file):\(index + 1)")
                let comment = lines[max(0, index - 12)..<index].joined(separator: " ")
                #expect(comment.contains("Safe unchecked"), "\(file):\(index + 1) says nothing of why it is safe")
            }
        }
        #expect(found.count <= 3, "\(found)")
    }
}
