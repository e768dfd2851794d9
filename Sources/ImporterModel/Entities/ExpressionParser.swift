import Foundation

/// Reads and writes the text form of `Expression`, as model files write derived attributes:
///
///     year(date)
///     case when latitude is null then 'unknown' when latitude >= 0 then 'N' else 'S' end
///     energy * 1e10 || ' J'
///
/// Grammar (keywords are case-insensitive): `or` < `and` < `not` < comparison (`= != <> < <= > >=`,
/// `is [not] null`) < `||` < `+ -` < `* /` < unary `-` < primary (number, `'text'` with `''` for a
/// quote, `null`, `true`, `false`, attribute name, function call, parenthesis, `case … end`).
/// Only the functions of `Expression.Function` exist. An attribute whose name is not a plain word
/// (letters, digits and `_`, not a keyword) is written between double quotes, `""` for a quote:
/// `"depth km"`, `"select"`, `"case"`; any attribute may be.
///
/// Bounded: at most `maximumTokens` tokens and `maximumDepth` levels of nesting (parentheses,
/// function calls, `case`, chains of `not` or unary `-`), so that neither parsing nor the
/// recursive walks of the tree (rendering, evaluation, SQL) can exhaust the stack.
public struct ExpressionParser {
    public static let maximumTokens = 1000
    public static let maximumDepth = 64
    /// The expression language's keywords: an attribute named after one is written quoted.
    public static let reservedWords: Set<String> = ["and", "or", "not", "is", "null", "true", "false", "case", "when", "then", "else", "end"]

    public struct Failure: Error, Equatable, CustomStringConvertible {
        /// 1-based offset in the expression text.
        public var offset: Int
        public var message: String
        public var description: String { "at character \(offset): \(message)" }
    }

    private enum Token: Equatable {
        case number(String)
        case text(String)
        case word(String)
        /// A double-quoted attribute name.
        case quoted(String)
        case symbol(String)
        case end
    }

    private var tokens: [(token: Token, offset: Int)] = []
    private var position = 0
    private var depth = 0

    public static func parse(_ text: String) throws(Failure) -> Expression {
        var parser = ExpressionParser()
        try parser.tokenize(text)
        let expression = try parser.or()
        guard parser.current == .end else { throw parser.failure("unexpected \(parser.describe(parser.current))") }
        return expression
    }

    private var current: Token { tokens[position].token }

    private func failure(_ message: String) -> Failure {
        Failure(offset: tokens[position].offset, message: message)
    }

    private func describe(_ token: Token) -> String {
        switch token {
        case .number(let n): "number \(n)"
        case .text(let t): "text '\(t)'"
        case .word(let w): "'\(w)'"
        case .quoted(let name): "attribute \(Expression.attribute(name).text)"
        case .symbol(let s): "'\(s)'"
        case .end: "end of expression"
        }
    }

    private mutating func tokenize(_ text: String) throws(Failure) {
        let scalars = Array(text.unicodeScalars)
        var i = 0
        func isLetter(_ c: Unicode.Scalar) -> Bool { c == "_" || c.properties.isAlphabetic }
        func isDigit(_ c: Unicode.Scalar) -> Bool { ("0"..."9").contains(c) }
        while i < scalars.count {
            let c = scalars[i]
            let start = i + 1
            if c == " " || c == "\t" || c == "\n" || c == "\r" { i += 1; continue }
            if isDigit(c) || (c == "." && i + 1 < scalars.count && isDigit(scalars[i + 1])) {
                var j = i
                while j < scalars.count, isDigit(scalars[j]) || scalars[j] == "." { j += 1 }
                if j < scalars.count, scalars[j] == "e" || scalars[j] == "E" {
                    j += 1
                    if j < scalars.count, scalars[j] == "+" || scalars[j] == "-" { j += 1 }
                    while j < scalars.count, isDigit(scalars[j]) { j += 1 }
                }
                tokens.append((.number(String(String.UnicodeScalarView(scalars[i..<j]))), start))
                i = j
            } else if isLetter(c) {
                var j = i
                while j < scalars.count, isLetter(scalars[j]) || isDigit(scalars[j]) { j += 1 }
                tokens.append((.word(String(String.UnicodeScalarView(scalars[i..<j]))), start))
                i = j
            } else if c == "'" || c == "\"" {
                let (value, end) = try Self.quoted(scalars, from: i)
                tokens.append((c == "'" ? .text(value) : .quoted(value), start))
                i = end
            } else {
                let two = i + 1 < scalars.count ? String(String.UnicodeScalarView([c, scalars[i + 1]])) : ""
                if ["<=", ">=", "!=", "<>", "||"].contains(two) {
                    tokens.append((.symbol(two == "<>" ? "!=" : two), start))
                    i += 2
                } else if "=<>+-*/(),".unicodeScalars.contains(c) {
                    tokens.append((.symbol(String(c)), start))
                    i += 1
                } else {
                    throw Failure(offset: start, message: "unexpected character '\(c)'")
                }
            }
        }
        tokens.append((.end, scalars.count + 1))
        guard tokens.count <= Self.maximumTokens + 1 else {
            throw Failure(offset: tokens[Self.maximumTokens].offset, message: "the expression is longer than \(Self.maximumTokens) tokens")
        }
    }

    /// The text between the quote at `start` and its closing one (a doubled quote stands for one),
    /// and the index after the closing quote.
    private static func quoted(_ scalars: [Unicode.Scalar], from start: Int) throws(Failure) -> (String, Int) {
        let quote = scalars[start]
        var value = String.UnicodeScalarView()
        var j = start + 1
        while j < scalars.count {
            if scalars[j] == quote {
                if j + 1 < scalars.count, scalars[j + 1] == quote { value.append(quote); j += 2; continue }
                return (String(value), j + 1)
            }
            value.append(scalars[j])
            j += 1
        }
        let what = quote == "'" ? "text" : "a quoted attribute name"
        throw Failure(offset: start + 1, message: "\(what) is not closed with \(quote)")
    }

    /// Enters one level of nesting; throws past `maximumDepth`.
    private mutating func nest() throws(Failure) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure("the expression is nested deeper than \(Self.maximumDepth) levels") }
    }

    private func isKeyword(_ word: String) -> Bool {
        if case .word(let w) = current { return w.lowercased() == word }
        return false
    }

    private mutating func take(_ symbol: String) -> Bool {
        if current == .symbol(symbol) { position += 1; return true }
        return false
    }

    private mutating func takeKeyword(_ word: String) -> Bool {
        if isKeyword(word) { position += 1; return true }
        return false
    }

    private mutating func expect(_ symbol: String) throws(Failure) {
        guard take(symbol) else { throw failure("expected '\(symbol)', found \(describe(current))") }
    }

    private mutating func or() throws(Failure) -> Expression {
        try nest()
        defer { depth -= 1 }
        var lhs = try and()
        while takeKeyword("or") { lhs = .binary(.or, lhs, try and()) }
        return lhs
    }

    private mutating func and() throws(Failure) -> Expression {
        var lhs = try not()
        while takeKeyword("and") { lhs = .binary(.and, lhs, try not()) }
        return lhs
    }

    private mutating func not() throws(Failure) -> Expression {
        if takeKeyword("not") {
            try nest()
            defer { depth -= 1 }
            return .not(try not())
        }
        return try comparison()
    }

    private mutating func comparison() throws(Failure) -> Expression {
        let lhs = try concatenation()
        if takeKeyword("is") {
            let negated = takeKeyword("not")
            guard takeKeyword("null") else { throw failure("expected null after is") }
            return negated ? .not(.isNull(lhs)) : .isNull(lhs)
        }
        for (symbol, op) in [("=", Expression.BinaryOperator.equal), ("!=", .notEqual), ("<=", .lessOrEqual), (">=", .greaterOrEqual), ("<", .less), (">", .greater)] where take(symbol) {
            return .binary(op, lhs, try concatenation())
        }
        return lhs
    }

    private mutating func concatenation() throws(Failure) -> Expression {
        var lhs = try additive()
        while take("||") { lhs = .binary(.concatenate, lhs, try additive()) }
        return lhs
    }

    private mutating func additive() throws(Failure) -> Expression {
        var lhs = try multiplicative()
        while true {
            if take("+") { lhs = .binary(.add, lhs, try multiplicative()) } else if take("-") { lhs = .binary(.subtract, lhs, try multiplicative()) } else { return lhs }
        }
    }

    private mutating func multiplicative() throws(Failure) -> Expression {
        var lhs = try unary()
        while true {
            if take("*") { lhs = .binary(.multiply, lhs, try unary()) } else if take("/") { lhs = .binary(.divide, lhs, try unary()) } else { return lhs }
        }
    }

    private mutating func unary() throws(Failure) -> Expression {
        if take("-") {
            try nest()
            defer { depth -= 1 }
            let operand = try unary()
            switch operand {
            case .literal(.integer(let n)): return .literal(.integer(-n))
            case .literal(.real(let x)): return .literal(.real(-x))
            default: return .binary(.subtract, .literal(.integer(0)), operand)
            }
        }
        return try primary()
    }

    private mutating func primary() throws(Failure) -> Expression {
        let token = current
        switch token {
        case .number(let text):
            position += 1
            if let n = Int64(text) { return .literal(.integer(n)) }
            guard let x = NumberParser.double(text) else { throw Failure(offset: tokens[position - 1].offset, message: "'\(text)' is not a number") }
            return .literal(.real(x))
        case .text(let text):
            position += 1
            return .literal(.text(text))
        case .quoted(let name):
            position += 1
            return .attribute(name)
        case .symbol("("):
            position += 1
            let inner = try or()
            try expect(")")
            return inner
        case .word(let word):
            switch word.lowercased() {
            case "null": position += 1; return .literal(.null)
            case "true": position += 1; return .literal(.integer(1))
            case "false": position += 1; return .literal(.integer(0))
            case "case": return try caseExpression()
            case let keyword where Self.reservedWords.contains(keyword):
                throw failure("expected a value, found the keyword '\(word)'")
            default: break
            }
            position += 1
            guard take("(") else { return .attribute(word) }
            guard let function = Expression.Function(rawValue: word.lowercased()) else {
                throw Failure(offset: tokens[position - 2].offset, message: "unknown function \(word)() (known: \(Expression.Function.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            var arguments: [Expression] = []
            if !take(")") {
                repeat { arguments.append(try or()) } while take(",")
                try expect(")")
            }
            return .function(function, arguments)
        default:
            throw failure("expected a value, found \(describe(token))")
        }
    }

    private mutating func caseExpression() throws(Failure) -> Expression {
        position += 1
        var branches: [Expression.Branch] = []
        while takeKeyword("when") {
            let condition = try or()
            guard takeKeyword("then") else { throw failure("expected then, found \(describe(current))") }
            branches.append(Expression.Branch(condition, try or()))
        }
        guard !branches.isEmpty else { throw failure("expected when after case") }
        let otherwise = takeKeyword("else") ? try or() : nil
        guard takeKeyword("end") else { throw failure("expected end, found \(describe(current))") }
        return .when(branches, otherwise: otherwise)
    }
}

extension Expression {
    /// The expression in the text form `ExpressionParser` reads, with the parentheses its
    /// precedence needs and no more (a chain `a + b + c` stays flat, so the text of an expression
    /// that parsed is within the parser's bounds and parses back to the same tree).
    public var text: String {
        switch self {
        case .attribute(let name): return Self.attributeText(name)
        case .literal(let value):
            switch value {
            case .null: return "null"
            case .integer(let n): return String(n)
            case .real(let x): return x.description
            case .text(let t): return "'" + t.replacingOccurrences(of: "'", with: "''") + "'"
            }
        case .function(let function, let arguments):
            return "\(function.rawValue)(\(arguments.map(\.text).joined(separator: ", ")))"
        case .binary(.subtract, .literal(.integer(0)), let e) where Self.writesAsNegation(e):
            // What the parser reads `-e` as, written back the short way (`0 - e` is as short when
            // `e` is a product: see `writesAsNegation`).
            return "-" + e.operandText(atLeast: Self.negationLevel)
        case .binary(let op, let lhs, let rhs):
            let symbol = op == .and ? "and" : op == .or ? "or" : op.rawValue
            let level = precedence
            // Left-associative, but comparisons do not chain: both of their sides bind tighter.
            let left = level == Self.comparisonLevel ? level + 1 : level
            return "\(lhs.operandText(atLeast: left)) \(symbol) \(rhs.operandText(atLeast: level + 1))"
        case .not(.isNull(let e)):
            return "\(e.operandText(atLeast: Self.comparisonLevel + 1)) is not null"
        case .not(let e):
            return "not \(e.operandText(atLeast: precedence))"
        case .isNull(let e):
            return "\(e.operandText(atLeast: Self.comparisonLevel + 1)) is null"
        case .when(let branches, let otherwise):
            var text = "case"
            for branch in branches { text += " when \(branch.condition.text) then \(branch.value.text)" }
            if let otherwise { text += " else \(otherwise.text)" }
            return text + " end"
        }
    }

    private static let comparisonLevel = 4

    /// How tightly the expression's text binds, as the parser's grammar levels: `or` 1, `and` 2,
    /// `not` 3, comparisons 4, `||` 5, `+ -` 6, `* /` 7, a negative number 8, anything else 9.
    private var precedence: Int {
        switch self {
        case .binary(.subtract, .literal(.integer(0)), let e) where Self.writesAsNegation(e): return Self.negationLevel
        case .binary(let op, _, _):
            switch op {
            case .or: return 1
            case .and: return 2
            case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual: return Self.comparisonLevel
            case .concatenate: return 5
            case .add, .subtract: return 6
            case .multiply, .divide: return 7
            }
        case .not(.isNull), .isNull: return Self.comparisonLevel
        case .not: return 3
        case .literal(.integer(let n)) where n < 0: return 8
        case .literal(.real(let x)) where x.sign == .minus: return 8
        default: return 9
        }
    }

    private static let negationLevel = 8

    /// Whether `0 - e` is written `-e`: not for a number (`-5` reads as the literal -5), nor for a
    /// product (`0 - a * b` is shorter than `-(a * b)`); `-(a + b)` is shorter than `0 - (a + b)`.
    /// (The parser reads `-e` as `0 - e`, so the text must not grow: it has a token limit.)
    private static func writesAsNegation(_ e: Expression) -> Bool {
        switch e {
        case .literal(.integer), .literal(.real): return false
        default: return e.precedence != 7
        }
    }

    private func operandText(atLeast level: Int) -> String {
        precedence >= level ? text : "(" + text + ")"
    }
}

extension Expression {
    /// An attribute reference as the parser reads it back: the bare name when it is a plain word
    /// (a letter or `_`, then letters, digits or `_`; not a keyword), else between double quotes
    /// with its double quotes doubled.
    static func attributeText(_ name: String) -> String {
        let scalars = Array(name.unicodeScalars)
        let isLetter = { (c: Unicode.Scalar) in c == "_" || c.properties.isAlphabetic }
        let isPlain = scalars.first.map(isLetter) == true
            && scalars.allSatisfy { isLetter($0) || ("0"..."9").contains($0) }
            && !ExpressionParser.reservedWords.contains(name.lowercased())
        return isPlain ? name : "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
