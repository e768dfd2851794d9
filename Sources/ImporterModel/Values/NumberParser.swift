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

    /// The double for `bytes[start..<start+count]` × 10^`shift`, correctly rounded, or nil when
    /// the text is not a number. (The shift makes a unit scale such as joules → 10^10 J exact:
    /// `2.9e10` with shift -10 is exactly the double nearest 2.9, which `2.9e10 * 1e-10` is not.)
    @inline(__always)
    public static func double(_ base: UnsafePointer<UInt8>, count: Int, shift: Int = 0) -> Double? {
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
        exponent += shift
        if significantDigits <= 15 && exponent >= -22 && exponent <= 22 {
            var result = Double(mantissa)
            if exponent < 0 { result /= powersOfTen[-exponent] } else if exponent > 0 { result *= powersOfTen[exponent] }
            return negative ? -result : result
        }
        return slowPath(base, count: count, shift: shift)
    }

    /// `strtod` on the text, with `e<shift>` appended when shifting (strtod adds exponents exactly).
    private static func slowPath(_ base: UnsafePointer<UInt8>, count: Int, shift: Int) -> Double? {
        let suffix = shift == 0 ? [] : Array("e\(shift)".utf8)
        let hasExponent = (0..<count).contains { base[$0] == UInt8(ascii: "e") || base[$0] == UInt8(ascii: "E") }
        if shift != 0 && hasExponent {
            // Fold the shift into the written exponent.
            var digits = Array(UnsafeBufferPointer(start: base, count: count))
            guard let e = digits.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }),
                  let written = Int(String(decoding: digits[(e + 1)...], as: UTF8.self)) else { return nil }
            digits.replaceSubrange((e + 1)..., with: Array(String(written + shift).utf8))
            return digits.withUnsafeBufferPointer { buffer in
                buffer.baseAddress.flatMap { slowPath($0, count: buffer.count, shift: 0) }
            }
        }
        let total = count + suffix.count
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: total + 1) { buffer in
            for i in 0..<count { buffer[i] = CChar(bitPattern: base[i]) }
            for (i, byte) in suffix.enumerated() { buffer[count + i] = CChar(bitPattern: byte) }
            buffer[total] = 0
            guard let start = buffer.baseAddress else { return nil }
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(start, &end)
            guard end == start + total, value.isFinite else { return nil }
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

    /// Whether the text is an optional sign and one or more decimal digits (an integer, whatever
    /// its size).
    public static func isDecimalInteger(_ base: UnsafePointer<UInt8>, count: Int) -> Bool {
        var index = count > 0 && (base[0] == UInt8(ascii: "-") || base[0] == UInt8(ascii: "+")) ? 1 : 0
        guard index < count else { return false }
        while index < count {
            guard base[index] &- 0x30 < 10 else { return false }
            index += 1
        }
        return true
    }

    public static func double(_ text: String, shift: Int = 0) -> Double? {
        var text = text
        return text.withUTF8 { buffer in buffer.baseAddress.flatMap { double($0, count: buffer.count, shift: shift) } }
    }

    /// The exponent k when `scale` is exactly 10^k (|k| ≤ 30), else nil.
    public static func powerOfTen(_ scale: Double) -> Int? {
        guard scale > 0 else { return nil }
        let k = Int(log10(scale).rounded())
        guard abs(k) <= 30, let exact = double("1e\(k)"), exact == scale else { return nil }
        return k
    }
}
