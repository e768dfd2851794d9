/// Everything the samples say about one field: where it is, how often it has a value, its
/// values' shapes, a sample, and each record's value (for choosing a key).
public struct FieldProfile: Sendable {
    public let address: String
    public let words: [String]
    public let shortWords: Int
    /// Its position among the fields, in the order they were first met.
    public private(set) var order: Int
    public let isArray: Bool
    public let arrayAddress: String?
    /// Records where the field has a non-null value; where that value is also not empty.
    public private(set) var valued = 0
    public private(set) var filled = 0
    /// The most values the field had in one record.
    public private(set) var maximumValues = 0
    /// The lengths its arrays had (JSON arrays of scalars).
    public private(set) var lengths = Set<Int>()
    public private(set) var evidence = TypeEvidence()
    /// The first non-null, non-empty value.
    public private(set) var sample: SampleScalar?
    /// Per sampled record (by index across all feeds), the field's single non-empty value.
    public private(set) var values: [Int: String] = [:]
    /// Whether `values` is kept: not for the records read past the sample (their types and
    /// presence count, in bounded memory; the key is chosen from the sample).
    private let keepsValues: Bool

    init(_ field: SampledField, order: Int, keepsValues: Bool = true) {
        self.keepsValues = keepsValues
        address = field.address
        words = field.words
        shortWords = field.shortWords
        self.order = order
        isArray = field.isArray
        arrayAddress = field.arrayAddress
    }

    mutating func observe(_ field: SampledField, record: Int) {
        maximumValues = max(maximumValues, field.values.count)
        if isArray { lengths.insert(field.values.count) }
        var hasValue = false, hasFilled = false
        for value in field.values {
            evidence.observe(value)
            guard let text = value.text else { continue }
            hasValue = true
            if !text.isEmpty {
                hasFilled = true
                if sample == nil { sample = value }
            }
        }
        if hasValue { valued += 1 }
        if hasFilled { filled += 1 }
        if keepsValues, field.values.count == 1, !isArray, let text = field.values[0].text, !text.isEmpty { values[record] = text }
    }

    /// This profile at position `order` among the fields.
    func reordered(_ order: Int) -> FieldProfile {
        var profile = self
        profile.order = order
        return profile
    }

    /// Adds what `tail` (this field in the records read past the sample) saw, values aside.
    mutating func absorb(_ tail: FieldProfile) {
        valued += tail.valued
        filled += tail.filled
        maximumValues = max(maximumValues, tail.maximumValues)
        lengths.formUnion(tail.lengths)
        evidence.merge(tail.evidence)
        if sample == nil { sample = tail.sample }
    }

    /// Whether the field can have several values in one record (an array, a repeated element).
    var isRepeated: Bool { isArray || maximumValues > 1 }
}
