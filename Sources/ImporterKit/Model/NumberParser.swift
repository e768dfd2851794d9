import Foundation

/// Parses decimal text from feeds: an optional `+` or `-`, digits with an optional fraction, an
/// optional exponent. No spaces, no `inf`/`nan`, no hex.
///
/// Hand-written because number parsing dominated JSON import time with `strtod` alone (see
/// SWIFT-NOTES.md). Values with at most 15 significant digits and a decimal exponent within ±22
/// are computed exactly with one multiplication or division by an exact power of ten (Clinger's
/// fast path, correctly rounded); everything else falls back to `strtod`, which is correctly
/// rounded on glibc.
public enum NumberParser {
    private static let powersOfTen: [Double] = (0...22).map { pow(10, Double($0)) }

    /// The double for `bytes[start..<start+count]`, or nil when the text is not a number.
    @inline(__always)
    public static func double(_ base: UnsafePointer<UInt8>, count: Int) -> Double? {
        guard count > 0 else { return nil }
        var index = 0
        var negative = false
        if base[0] == UInt8(ascii: "-") || base[0] == UInt8(ascii: "+") {
            negative = base[0] == UInt8(ascii: "-")
            index = 1
        }
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var exponent = 0
        var sawDigit = false
        // Integer part. Leading zeros are not significant.
        while index < count, base[index] &- 0x30 < 10 {
            sawDigit = true
            let digit = UInt64(base[index] &- 0x30)
            if mantissa != 0 || digit != 0 {
                if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ digit
                } else {
                    exponent += 1
                }
                significantDigits += 1
            }
            index += 1
        }
        // Fraction.
        if index < count, base[index] == UInt8(ascii: ".") {
            index += 1
            var sawFractionDigit = false
            while index < count, base[index] &- 0x30 < 10 {
                sawFractionDigit = true
                let digit = UInt64(base[index] &- 0x30)
                if significantDigits < 19 {
                    if mantissa != 0 || digit != 0 { significantDigits += 1 }
                    mantissa = mantissa &* 10 &+ digit
                    exponent -= 1
                } else {
                    significantDigits += 1
                }
                index += 1
            }
            guard sawDigit || sawFractionDigit else { return nil }
            sawDigit = true
        }
        guard sawDigit else { return nil }
        // Exponent.
        if index < count, base[index] == UInt8(ascii: "e") || base[index] == UInt8(ascii: "E") {
            index += 1
            var exponentNegative = false
            if index < count, base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-") {
                exponentNegative = base[index] == UInt8(ascii: "-")
                index += 1
            }
            let digitsStart = index
            var value = 0
            while index < count, base[index] &- 0x30 < 10 {
                if value < 100_000 { value = value * 10 + Int(base[index] &- 0x30) }
                index += 1
            }
            guard index > digitsStart else { return nil }
            exponent += exponentNegative ? -value : value
        }
        guard index == count else { return nil }
        if significantDigits <= 15 && exponent >= -22 && exponent <= 22 {
            var result = Double(mantissa)
            if exponent < 0 { result /= powersOfTen[-exponent] } else if exponent > 0 { result *= powersOfTen[exponent] }
            return negative ? -result : result
        }
        return slowPath(base, count: count)
    }

    private static func slowPath(_ base: UnsafePointer<UInt8>, count: Int) -> Double? {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { buffer in
            for i in 0..<count { buffer[i] = CChar(bitPattern: base[i]) }
            buffer[count] = 0
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(buffer.baseAddress!, &end)
            guard end == buffer.baseAddress! + count, value.isFinite else { return nil }
            return value
        }
    }

    /// The integer for decimal text with an optional sign, or nil (also on overflow).
    public static func integer(_ base: UnsafePointer<UInt8>, count: Int) -> Int64? {
        guard count > 0 else { return nil }
        var index = 0
        var negative = false
        if base[0] == UInt8(ascii: "-") || base[0] == UInt8(ascii: "+") {
            negative = base[0] == UInt8(ascii: "-")
            index = 1
        }
        guard index < count else { return nil }
        var magnitude: UInt64 = 0
        while index < count {
            let digit = base[index] &- 0x30
            guard digit < 10 else { return nil }
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
            guard !o1, !o2 else { return nil }
            magnitude = sum
            index += 1
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

    public static func double(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { double($0.baseAddress!, count: $0.count) }
    }
}
