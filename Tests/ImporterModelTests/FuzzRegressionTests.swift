import ImporterTestSupport
import Foundation
@testable import ImporterKit
@testable import ImporterModel
import Testing

/// The inputs libFuzzer found crashing or misbehaving (Fuzz/regressions/), each now a clear error.
@Suite struct FuzzRegressionTests {
    static let regressions = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/regressions")

    static func text(_ target: String, _ name: String) throws -> String {
        try String(contentsOf: regressions.appendingPathComponent(target).appendingPathComponent(name), encoding: .utf8)
    }

    @Test(arguments: [
        ("stack-overflow-nested-parentheses", "the expression is longer than 1000 tokens"),
        ("stack-overflow-long-sum", "the expression is longer than 1000 tokens"),
        ("roundtrip-keyword-as-attribute", "expected a value, found the keyword 'not'"),
    ])
    func expressionRegressionsFailCleanly(name: String, message: String) throws {
        let text = try Self.text("expression", name)
        #expect(throws: ExpressionParser.Failure.self) { try ExpressionParser.parse(text) }
        do {
            _ = try ExpressionParser.parse(text)
        } catch {
            #expect(error.message == message)
        }
    }

    /// `a - -a - …` reads `-a` as `0 - a`; its text must stay as short (`-a`), within the token
    /// limit, so that what importer writes reads back.
    @Test(arguments: ["roundtrip-negation-over-token-limit", "roundtrip-negation-over-token-limit-found"])
    func negationsRoundTripWithinTheTokenLimit(name: String) throws {
        let expression = try ExpressionParser.parse(try Self.text("expression", name))
        #expect(try ExpressionParser.parse(expression.text) == expression)
        let negated = try ExpressionParser.parse("-(a + b) * -c - -d")
        #expect(negated.text == "-(a + b) * -c - -d")
        #expect(try ExpressionParser.parse(negated.text) == negated)
    }

    @Test func nestingAndLengthAreBounded() throws {
        let deep = String(repeating: "(", count: 65) + "1" + String(repeating: ")", count: 65)
        #expect(throws: ExpressionParser.Failure(offset: 65, message: "the expression is nested deeper than 64 levels")) { try ExpressionParser.parse(deep) }
        let nots = String(repeating: "not ", count: 70) + "x"
        #expect(throws: ExpressionParser.Failure.self) { try ExpressionParser.parse(nots) }
        let shallow = String(repeating: "(", count: 60) + "1" + String(repeating: ")", count: 60)
        #expect(try ExpressionParser.parse(shallow) == .literal(.integer(1)))
        let longSum = (0..<400).map { _ in "a" }.joined(separator: " + ")
        let sum = try ExpressionParser.parse(longSum)
        #expect(try ExpressionParser.parse(sum.text) == sum)
    }

    @Test(arguments: ["roundtrip-keyword-attribute.yaml", "stack-overflow-nested-expression.yaml"])
    func modelRegressionsAreModelProblems(name: String) throws {
        let text = try Self.text("model", name)
        #expect(throws: ModelError.self) { try ModelFile.parse(text, name: name) }
        do {
            _ = try ModelFile.parse(text, name: name)
        } catch {
            #expect("\(error)".contains("keyword") || "\(error)".contains("tokens") || "\(error)".contains("nested deeper"), "\(error)")
        }
    }
}
