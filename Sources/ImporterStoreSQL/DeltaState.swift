import ImporterModel

/// One aggregate's change over a range, as `ViewSQL.delta` computes it.
enum DeltaState {
    /// count(*) (no argument) or count(argument): signed.
    case count(Int64, counting: Bool)
    case sum(Double)
    case average(Double, Int64)
    /// The extreme entering and the extreme leaving the group (NULL when none).
    case extremes(added: Value, removed: Value, max: Bool)

    static func initial(_ aggregate: Aggregate) -> DeltaState {
        switch aggregate.function {
        case .count: .count(0, counting: aggregate.attribute == nil)
        case .sum: .sum(0)
        case .avg: .average(0, 0)
        case .min: .extremes(added: .null, removed: .null, max: false)
        case .max: .extremes(added: .null, removed: .null, max: true)
        }
    }

    /// Adds an image's argument (nil: the aggregate has none) entering (`sign` 1) or leaving (-1).
    mutating func add(_ value: Value?, sign: Int64) {
        switch self {
        case .count(let n, let counting):
            if counting || !(value ?? .null).isNull { self = .count(n + sign, counting: counting) }
        case .sum(let total):
            if let number = value?.doubleValue { self = .sum(total + Double(sign) * number) }
        case .average(let total, let count):
            // As SQL: every non-null value counts, one that is not a number adds 0.
            guard let value, !value.isNull else { return }
            self = .average(total + Double(sign) * (value.doubleValue ?? 0), count + sign)
        case .extremes(var added, var removed, let isMax):
            guard let value, !value.isNull else { return }
            func better(_ a: Value, than b: Value) -> Bool {
                b.isNull || (isMax ? Value.compare(a, b) > 0 : Value.compare(a, b) < 0)
            }
            if sign > 0 {
                if better(value, than: added) { added = value }
            } else if better(value, than: removed) {
                removed = value
            }
            self = .extremes(added: added, removed: removed, max: isMax)
        }
    }

    /// The delta columns `ViewDeltaApplier` reads: count → d; sum → d; avg → d_sum, d_count;
    /// min/max → added, removed.
    var deltaColumns: [Value] {
        switch self {
        case .count(let n, _): [.integer(n)]
        case .sum(let total): [.real(total)]
        case .average(let total, let count): [.real(total), .integer(count)]
        case .extremes(let added, let removed, _): [added, removed]
        }
    }
}
