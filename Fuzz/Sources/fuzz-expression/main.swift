// ExpressionParser.parse on derived-attribute expressions. An expression that parses is written
// back (`Expression.text`, what `importer model show` writes), which must parse again to the same
// expression; its SQL and problems are computed too.
import Foundation
import FuzzSupport
import ImporterKit

Fuzz.run { data in
    let text = String(decoding: data, as: UTF8.self)
    let expression: Expression
    do {
        expression = try ExpressionParser.parse(text)
    } catch {
        _ = error.description
        return
    }
    _ = expression.sql()
    _ = expression.problems(attributes: ["date", "energy", "latitude"])
    let written = expression.text
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
}
