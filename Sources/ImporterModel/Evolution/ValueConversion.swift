/// A stored value converted to another attribute type (`importer migrate`'s retype), by the
/// model's own reading rules: text is read as a model file's value is (`AttributeEvolution.value`),
/// a number becomes text as written in decimal, a real an integer only when it is whole, a
/// boolean 1/0 (`true`/`false` as text), a date a date and time at midnight.
public enum ValueConversion {
    /// Whether values of `from` can become values of `to` at all (some may still not convert).
    public static func isSupported(from: AttributeType, to: AttributeType) -> Bool {
        switch (from, to) {
        case (.datetime, .date), (.date, .integer), (.date, .real), (.date, .boolean), (.datetime, .integer), (.datetime, .real), (.datetime, .boolean),
             (.integer, .date), (.integer, .datetime), (.real, .date), (.real, .datetime), (.boolean, .date), (.boolean, .datetime), (.real, .boolean),
             (.boolean, .real):
            false
        default: true
        }
    }

    /// `value` (stored as an attribute of type `from`) as a value of type `to`, or why it does not
    /// convert. Null stays null.
    public static func convert(_ value: Value, from: AttributeType, to: AttributeType) -> Result<Value, Failure> {
        if value.isNull || from == to { return .success(value) }
        switch (value, to) {
        case (.text(let text), _):
            return AttributeEvolution.value(of: from == .date && to == .datetime ? text + " 00:00:00" : text, as: to)
                .map(Result.success) ?? .failure(Failure(reason: "'\(shown(text))' does not read as \(to.rawValue)"))
        case (.integer(let number), .text):
            return .success(.text(from == .boolean ? (number == 0 ? "false" : "true") : String(number)))
        case (.integer(let number), .real): return .success(.real(Double(number)))
        case (.integer(let number), .integer): return .success(.integer(number))
        case (.integer(let number), .boolean):
            return number == 0 || number == 1 ? .success(.integer(number)) : .failure(Failure(reason: "\(number) is not 1 or 0"))
        case (.real(let number), .text): return .success(.text(String(number)))
        case (.real(let number), .real): return .success(.real(number))
        case (.real(let number), .integer):
            guard number.rounded() == number, let whole = Int64(exactly: number) else { return .failure(Failure(reason: "\(number) is not a whole number")) }
            return .success(.integer(whole))
        default:
            return .failure(Failure(reason: "\(value) cannot become \(to.rawValue)"))
        }
    }

    /// A text as a refusal quotes it: its first 60 characters.
    private static func shown(_ text: String) -> String {
        text.count > 60 ? text.prefix(60) + "…" : text
    }

    /// Why a value does not convert.
    public struct Failure: Error, Sendable, Equatable {
        public var reason: String
    }
}
