import ImporterModel

/// JSON strings: escapes, `\u` surrogate pairs, and UTF-8 validated as it is copied (a bad byte is
/// a located error).
extension JSONScanner {
    /// Reads a string token (at the read position, after whitespace) and appends its decoded UTF-8
    /// to `output`. Validates UTF-8 and escapes.
    func string(into output: inout [UInt8]) throws(ScanError) {
        try scanString(into: &output, keeping: true)
    }

    /// Consumes a string token as `string(into:)` reads it, validating it alike, without keeping
    /// its text (a skipped value's strings: plain ASCII runs are passed over, not copied).
    func skipString() throws(ScanError) {
        var escapes: [UInt8] = []
        try scanString(into: &escapes, keeping: false)
    }

    /// `keeping`: plain runs are appended to `output` (escapes and multi-byte sequences always are).
    @inline(__always)
    private func scanString(into output: inout [UInt8], keeping: Bool) throws(ScanError) {
        guard try peek() == UInt8(ascii: "\"") else { throw syntaxError(expected: "a string") }
        position += 1
        while true {
            // Copy (or pass over) the longest run of plain ASCII bytes at once.
            var end = position
            while end < count {
                let byte = storage[end]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
                end += 1
            }
            if keeping, end > position {
                output.append(contentsOf: UnsafeBufferPointer(start: storage + position, count: end - position))
            }
            position = end
            guard position < count else {
                if atEnd { throw syntaxError(expected: "'\"' to close the string") }
                throw .needMore
            }
            let byte = storage[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return
            } else if byte == UInt8(ascii: "\\") {
                try escape(into: &output)
            } else if byte >= 0x80 {
                try utf8Sequence(into: &output)
            } else {
                throw syntaxError(expected: "no raw control character in a string (escape it)")
            }
        }
    }

    fileprivate func need(_ n: Int) throws(ScanError) {
        if position + n > count {
            if atEnd { throw syntaxError(expected: "more input") }
            throw .needMore
        }
    }

    fileprivate func escape(into output: inout [UInt8]) throws(ScanError) {
        try need(2)
        let code = storage[position + 1]
        switch code {
        case UInt8(ascii: "\""): output.append(0x22)
        case UInt8(ascii: "\\"): output.append(0x5C)
        case UInt8(ascii: "/"): output.append(0x2F)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            try need(6)
            guard var scalar = hex4(at: position + 2) else { throw syntaxError(expected: "four hex digits after \\u") }
            var consumed = 6
            if scalar >= 0xD800 && scalar < 0xDC00 {
                try need(12)
                guard storage[position + 6] == UInt8(ascii: "\\"), storage[position + 7] == UInt8(ascii: "u"),
                      let low = hex4(at: position + 8), low >= 0xDC00, low < 0xE000 else {
                    throw syntaxError(expected: "a low surrogate \\uDC00-\\uDFFF after a high surrogate")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                consumed = 12
            } else if scalar >= 0xDC00 && scalar < 0xE000 {
                throw syntaxError(expected: "a high surrogate before a low surrogate")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw syntaxError(expected: "a valid Unicode scalar") }
            output.append(contentsOf: unicode.utf8)
            position += consumed
            return
        default:
            throw syntaxError(expected: "a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
        }
        position += 2
    }

    fileprivate func hex4(at index: Int) -> UInt32? {
        var value: UInt32 = 0
        for offset in 0..<4 {
            let byte = storage[index + offset]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: return nil
            }
            value = value << 4 | digit
        }
        return value
    }

    /// Validates and copies one multi-byte UTF-8 sequence (RFC 3629: no overlongs, no surrogates).
    fileprivate func utf8Sequence(into output: inout [UInt8]) throws(ScanError) {
        guard let lead = UTF8Lead(storage[position]) else { throw invalidUTF8() }
        let length = lead.continuations + 1
        try need(length)
        for offset in 1..<length {
            let byte = storage[position + offset]
            let low: UInt8 = offset == 1 ? lead.low : 0x80
            let high: UInt8 = offset == 1 ? lead.high : 0xBF
            guard byte >= low && byte <= high else { throw invalidUTF8() }
        }
        output.append(contentsOf: UnsafeBufferPointer(start: storage + position, count: length))
        position += length
    }

    fileprivate func invalidUTF8() -> ScanError {
        .invalid(.syntax(location(), expected: "valid UTF-8", found: "byte " + UTF8Lead.hex(storage[position])))
    }
}
