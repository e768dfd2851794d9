// ExpressionParser.parse on derived-attribute expressions. An expression that parses is written
// back (`Expression.text`, what `importer model show` writes), which must parse again to the same
// expression; its problems are computed, and its SQL when it has none.
import Foundation
import FuzzSupport
import ImporterKit

private let keywords: Set<String> = ["and", "or", "not", "is", "case", "when", "then", "else", "end"]

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let data = Fuzz.buffer(bytes, size)
    let text = String(decoding: data, as: UTF8.self)
    let expression: ImporterKit.Expression
    do {
        expression = try ExpressionParser.parse(text)
    } catch {
        _ = "\(error)"
        return 0
    }
    _ = expression.problems(attributes: ["date", "energy", "latitude"])
    // As the product does: SQL only for a valid expression (`sql()` indexes the arguments a
    // function must have; EntityDescription.validate() reports wrong arities first).
    if expression.problems(attributes: expression.attributes).isEmpty { _ = expression.sql() }
    let written = expression.text
    // Finding 1 (Fuzz/README.md): a keyword read as an attribute name (`not * x`) is written back
    // as an operator. Skipped here until the parser rejects keywords as names, to find the rest.
    if !Fuzz.checkKnownFindings, !expression.attributes.isDisjoint(with: keywords) { return 0 }
    do {
        let again = try ExpressionParser.parse(written)
        if again != expression {
            FileHandle.standardError.write(Data("ROUND TRIP MISMATCH\n--- input:\n\(text)\n--- written:\n\(written)\n--- read back and written:\n\(again.text)\n".utf8))
            abort()
        }
    } catch {
        FileHandle.standardError.write(Data("ROUND TRIP FAILURE: the written expression does not parse\n--- input:\n\(text)\n--- written:\n\(written)\n--- error: \(error)\n".utf8))
        abort()
    }
    return 0
}
