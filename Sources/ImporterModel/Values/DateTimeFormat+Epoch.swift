extension DateTimeFormat {
    /// A number of 10^-`exponent` seconds since 1970-01-01 UTC: `[+-]digits[.digits][e[+-]digits]`,
    /// computed exactly in microseconds (further digits truncated toward the past).
    static func parseEpoch(_ cursor: inout DateTimeCursor, exponent unitExponent: Int) throws(Failure) -> CivilTime {
        let start = cursor.index
        var negative = false
        if cursor.take(UInt8(ascii: "-")) { negative = true } else { _ = cursor.take(UInt8(ascii: "+")) }
        // The mantissa: digits from `digitsStart`, the point (if any) after `integerDigits` of them.
        let digitsStart = cursor.index
        let integerDigits = cursor.skipDigits()
        var fractionDigits = 0
        if cursor.take(UInt8(ascii: ".")) { fractionDigits = cursor.skipDigits() }
        guard integerDigits > 0 else { throw Failure("\(cursor.text(from: start)) is not a number") }
        var exponent = 0
        if cursor.take(UInt8(ascii: "e")) || cursor.take(UInt8(ascii: "E")) {
            var negativeExponent = false
            if cursor.take(UInt8(ascii: "-")) { negativeExponent = true } else { _ = cursor.take(UInt8(ascii: "+")) }
            var digits = 0
            while let byte = cursor.current, byte &- 0x30 < 10 {
                exponent = min(exponent * 10 + Int(byte &- 0x30), 10_000)
                digits += 1
                cursor.index += 1
            }
            guard digits > 0 else { throw Failure("\(cursor.text(from: start)) is not a number (the exponent has no digits)") }
            if negativeExponent { exponent = -exponent }
        }
        guard cursor.atEnd else { throw Failure("\(cursor.text(from: start)) is not a number") }
        let mantissa = Mantissa(base: cursor.base + digitsStart, integerDigits: integerDigits, fractionDigits: fractionDigits)
        guard let micros = mantissa.floored(shift: exponent + 6 - unitExponent, negative: negative),
              micros >= CivilTime.earliest, micros <= CivilTime.latest else {
            throw Failure("\(cursor.text(from: start)) is outside years 0000-9999")
        }
        return CivilTime(microsecondsSinceEpoch: micros)
    }

    /// The digits of a decimal number in place: `integerDigits` digits, a point, `fractionDigits`.
    private struct Mantissa {
        let base: UnsafePointer<UInt8>
        let integerDigits: Int
        let fractionDigits: Int

        func digit(_ index: Int) -> Int { Int(base[index < integerDigits ? index : index + 1] &- 0x30) }

        /// `±mantissa × 10^shift`, floored to an integer; nil on overflow.
        func floored(shift: Int, negative: Bool) -> Int? {
            let count = integerDigits + fractionDigits
            var value = 0
            var dropped = false
            for index in 0..<count {
                // The power of ten this digit stands for.
                let power = integerDigits - 1 - index + shift
                let digit = digit(index)
                guard power >= 0 else {
                    dropped = dropped || digit != 0
                    continue
                }
                let (times, overflow) = value.multipliedReportingOverflow(by: 10)
                guard !overflow, times <= Int.max - digit else { return nil }
                value = times + digit
                guard index == count - 1, power > 0 else { continue }
                for _ in 0..<power {
                    let (scaled, overflow) = value.multipliedReportingOverflow(by: 10)
                    guard !overflow, scaled <= CivilTime.latest * 10 else { return nil }
                    value = scaled
                }
            }
            return negative ? -value - (dropped ? 1 : 0) : value
        }
    }
}
