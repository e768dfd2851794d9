import ImporterModel

/// What a field's sampled values say about its type, gathered one value at a time.
public struct TypeEvidence: Sendable {
    /// Non-null values seen (empty strings included).
    public private(set) var values = 0
    public private(set) var empty = 0
    private var booleans = 0
    /// Values that are numbers (JSON) or read as numbers (strings).
    private var integers = 0
    private var reals = 0
    /// Integers too long to keep exactly through a number (more than 15 digits).
    private var longIntegers = 0
    private var epochMilliseconds = 0
    private var epochSeconds = 0
    private var epochMicroseconds = 0
    private var shapes: [ValueShape.Element: Int] = [:]
    private var numberTokens = 0
    /// Strings that are not plain numbers but read as numbers written for people, per format;
    /// how many of all those read have a fraction.
    private var formatted: [NumberFormat: Int] = [:]
    private var formattedFractions: [NumberFormat: Int] = [:]

    public init() {}

    static let epochRange = 946_684_800...4_102_444_800 // 2000-01-01 to 2100-01-01 (seconds)
    static let epochSecondsRange = 315_532_800...4_102_444_800 // from 1980

    /// Adds what `other` saw (the same field, in other records).
    mutating func merge(_ other: TypeEvidence) {
        values += other.values
        empty += other.empty
        booleans += other.booleans
        integers += other.integers
        reals += other.reals
        longIntegers += other.longIntegers
        epochMilliseconds += other.epochMilliseconds
        epochSeconds += other.epochSeconds
        epochMicroseconds += other.epochMicroseconds
        numberTokens += other.numberTokens
        shapes.merge(other.shapes, uniquingKeysWith: +)
        formatted.merge(other.formatted, uniquingKeysWith: +)
        formattedFractions.merge(other.formattedFractions, uniquingKeysWith: +)
    }

    public mutating func observe(_ value: SampleScalar) {
        switch value {
        case .null: return
        case .bool:
            values += 1
            booleans += 1
        case .number(let text):
            values += 1
            numberTokens += 1
            observeNumber(text, shape: ValueShape.of(text))
        case .string(let text):
            values += 1
            if text.isEmpty { empty += 1; return }
            let shape = ValueShape.of(text)
            for member in [ValueShape.iso8601, .spacedDateTime, .date, .rfc2822, .booleanWord] where shape.contains(member) {
                shapes[member, default: 0] += 1
            }
            observeNumber(text, shape: shape)
            observeFormatted(text)
        }
    }

    /// The formats a number written for people may be in (`1.234,5`, `1,5`, `1,234.5`).
    static let peopleFormats = [NumberFormat(thousands: nil, decimal: UInt8(ascii: ",")),
                                NumberFormat(thousands: UInt8(ascii: "."), decimal: UInt8(ascii: ",")),
                                NumberFormat(thousands: UInt8(ascii: ","), decimal: UInt8(ascii: "."))]

    /// Counts the people's formats that read the string `text`, written with a separator, as a
    /// number, and which of them see a fraction in it.
    private mutating func observeFormatted(_ text: String) {
        guard text.utf8.count <= 32, text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: ".") }) else { return }
        var output: [UInt8] = []
        for format in Self.peopleFormats {
            let read = Array(text.utf8).withUnsafeBufferPointer { format.normalize($0, into: &output) }
            guard read else { continue }
            formatted[format, default: 0] += 1
            if output.contains(UInt8(ascii: ".")) { formattedFractions[format, default: 0] += 1 }
        }
    }

    /// The people's format that reads every value (plain integers, and the others written with a
    /// separator), when some value is not a plain number: a
    /// comma that is decimal or thousands alike (`5,366`) is read as `decimalComma` says (a
    /// `;`-separated export writes decimal commas), else as thousands.
    private func numberFormat(filled: Int, decimalComma: Bool) -> (format: NumberFormat, type: AttributeType, ambiguous: Bool)? {
        guard booleans == 0, numberTokens == 0, integers + reals < filled else { return nil }
        let fits = Self.peopleFormats.filter { integers + formatted[$0, default: 0] == filled }
        let chosen = decimalComma ? fits.first : (fits.first { $0.thousands == UInt8(ascii: ",") } ?? fits.first)
        guard let chosen else { return nil }
        let ambiguous = fits.contains { $0.decimal == UInt8(ascii: ",") } && fits.contains { $0.thousands == UInt8(ascii: ",") }
        return (chosen, formattedFractions[chosen, default: 0] > 0 ? .real : .integer, ambiguous)
    }

    private mutating func observeNumber(_ text: String, shape: ValueShape) {
        if shape.contains(.integer) {
            integers += 1
            let digits = text.hasPrefix("-") ? text.count - 1 : text.count
            if digits > 15 { longIntegers += 1 }
            if let number = Int64(text) {
                if number >= Int64(Self.epochRange.lowerBound) * 1000 && number <= Int64(Self.epochRange.upperBound) * 1000 { epochMilliseconds += 1 }
                if Self.epochSecondsRange.contains(Int(number)) { epochSeconds += 1 }
                if number >= Int64(Self.epochRange.lowerBound) * 1_000_000 && number <= Int64(Self.epochRange.upperBound) * 1_000_000 { epochMicroseconds += 1 }
            }
        } else if shape.contains(.real) {
            reals += 1
        }
    }

    /// The type (and datetime or number format) that reads every sampled value, for a field named
    /// by `words`; `decimalComma` decides a comma that could be decimal or thousands.
    public func inferred(words: [String], decimalComma: Bool = false) -> InferredType {
        let filled = values - empty
        var result = InferredType(type: .text)
        guard filled > 0 else { return result }
        let tokens = NameWords.tokens(words)
        let timeLike = tokens.contains { NameWords.timeWords.contains($0) } || tokens.last == "at"
        let idLike = tokens.contains { NameWords.identifierWords.contains($0) }
        if booleans == filled || shapes[.booleanWord] == filled {
            result.type = .boolean
        } else if integers == filled && booleans == 0 {
            if epochMilliseconds == filled && !idLike && (timeLike || numberTokens == filled) {
                result = InferredType(type: .datetime, format: "epoch-ms")
            } else if epochMicroseconds == filled && timeLike {
                result = InferredType(type: .datetime, format: "epoch-us")
            } else if epochSeconds == filled && timeLike {
                result = InferredType(type: .datetime, format: "epoch-s")
            } else {
                result.type = longIntegers > 0 ? .text : .integer
            }
        } else if integers + reals == filled && booleans == 0 {
            result.type = .real
        } else if let number = numberFormat(filled: filled, decimalComma: decimalComma) {
            result.type = number.type
            result.numberFormat = number.format
            result.ambiguousComma = number.ambiguous
        } else if shapes[.iso8601] == filled {
            result = InferredType(type: .datetime, format: "iso8601")
        } else if shapes[.spacedDateTime] == filled {
            result = InferredType(type: .datetime, format: DateTimeFormat.canonicalDateTime, zone: "UTC")
        } else if shapes[.date] == filled {
            result.type = .date
        } else if shapes[.rfc2822] == filled {
            result = InferredType(type: .datetime, format: "rfc2822")
        }
        result.emptyIsNull = empty > 0 && result.type != .text
        return result
    }
}

/// A field's inferred type and how the mapping reads it.
public struct InferredType: Sendable, Equatable {
    public var type: AttributeType
    /// The mapping's `format` for a datetime: `epoch-ms`, `iso8601`, a strftime pattern.
    public var format: String?
    /// The mapping's `zone`, for a pattern without one.
    public var zone: String?
    /// Empty strings read as null (`empty-is-null: true`).
    public var emptyIsNull = false
    /// For a number written for people: its format (`format: {decimal: ","}`).
    public var numberFormat: NumberFormat?
    /// Every comma could be decimal or thousands (`5,366`): `numberFormat` is a choice to check.
    public var ambiguousComma = false

    public init(type: AttributeType, format: String? = nil, zone: String? = nil, emptyIsNull: Bool = false, numberFormat: NumberFormat? = nil) {
        self.type = type
        self.format = format
        self.zone = zone
        self.emptyIsNull = emptyIsNull
        self.numberFormat = numberFormat
    }
}
