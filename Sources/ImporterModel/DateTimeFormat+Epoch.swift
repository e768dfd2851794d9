extension DateTimeFormat {
    /// A number of 10^-`exponent` seconds since 1970-01-01 UTC: `[+-]digits[.digits][e[+-]digits]`,
    /// computed exactly in microseconds (further digits truncated toward the past).
    static func parseEpoch(_ cursor: inout DateTimeCursor, exponent unitExponent: Int) throws(Failure) -> CivilTime {
        let text = cursor.position
        var negative = false
        if cursor.take(UInt8(ascii: "-")) { negative = true } else { _ = cursor.take(UInt8(ascii: "+")) }
        // The mantissa's digits in order, with the count before the point.
        var mantissa: [UInt8] = []
        var integerDigits = 0
        while let byte = cursor.current, byte &- 0x30 < 10 { mantissa.append(byte &- 0x30); integerDigits += 1; cursor.index += 1 }
        if cursor.take(UInt8(ascii: ".")) {
            while let byte = cursor.current, byte &- 0x30 < 10 { mantissa.append(byte &- 0x30); cursor.index += 1 }
        }
        guard integerDigits > 0 else { throw Failure("\(text) is not a number") }
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
            guard digits > 0 else { throw Failure("\(text) is not a number (the exponent has no digits)") }
            if negativeExponent { exponent = -exponent }
        }
        guard cursor.atEnd else { throw Failure("\(text) is not a number") }
        guard let micros = microseconds(mantissa, integerDigits: integerDigits, shift: exponent + 6 - unitExponent, negative: negative),
              micros >= CivilTime.earliest, micros <= CivilTime.latest else {
            throw Failure("\(text) is outside years 0000-9999")
        }
        return CivilTime(microsecondsSinceEpoch: micros)
    }

    /// `±0.digits × 10^(integerDigits + shift)`, floored to an integer; nil on overflow.
    private static func microseconds(_ digits: [UInt8], integerDigits: Int, shift: Int, negative: Bool) -> Int? {
        var value = 0
        var dropped = false
        for (index, digit) in digits.enumerated() {
            // The power of ten this digit stands for.
            let power = integerDigits - 1 - index + shift
            guard power >= 0 else {
                dropped = dropped || digit != 0
                continue
            }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow, times <= Int.max - Int(digit) else { return nil }
            value = times + Int(digit)
            guard index == digits.count - 1, power > 0 else { continue }
            for _ in 0..<power {
                let (scaled, overflow) = value.multipliedReportingOverflow(by: 10)
                guard !overflow else { return nil }
                value = scaled
                if value > CivilTime.latest * 10 { return nil }
            }
        }
        if digits.isEmpty { return 0 }
        return negative ? -value - (dropped ? 1 : 0) : value
    }
}
