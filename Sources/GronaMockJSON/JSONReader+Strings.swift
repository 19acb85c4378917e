/// Strings: escapes (RFC 8259 §7), surrogate pairs (§8.2) and UTF-8 validation (§8.1, RFC 3629).
extension JSONReader {
    /// A string from its opening quote. Strings without escapes, the great majority, become a String straight
    /// from the input bytes; UTF-8 is validated here so that an error can name its offset.
    mutating func parseString() throws(JSONParseError) -> String {
        let quote = index
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == .quote {
                let string = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return string
            } else if byte == .backslash {
                return try parseEscapedString(from: start, quote: quote)
            } else if byte < 0x20 {
                throw controlCharacter(byte)
            } else if byte < 0x80 {
                index += 1
            } else {
                try skipUTF8Sequence()
            }
        }
        throw error("unterminated string: no closing '\"' before the end of the input", at: quote)
    }

    /// The rest of a string that has an escape at `index`, decoded into `scratch` in runs between escapes.
    private mutating func parseEscapedString(from start: Int, quote: Int) throws(JSONParseError) -> String {
        scratch.removeAll(keepingCapacity: true)
        var runStart = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == .quote {
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                index += 1
                return String(decoding: scratch, as: UTF8.self)
            } else if byte == .backslash {
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                try decodeEscape()
                runStart = index
            } else if byte < 0x20 {
                throw controlCharacter(byte)
            } else if byte < 0x80 {
                index += 1
            } else {
                try skipUTF8Sequence()
            }
        }
        throw error("unterminated string: no closing '\"' before the end of the input", at: quote)
    }

    /// One escape from its backslash (RFC 8259 §7), appended to `scratch` as UTF-8.
    private mutating func decodeEscape() throws(JSONParseError) {
        let backslash = index
        guard let escaped = byte(at: index + 1) else {
            throw error("unterminated string: no closing '\"' before the end of the input", at: backslash)
        }
        let simple: UInt8?
        switch escaped {
        case .quote, .backslash, .slash: simple = escaped
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = .lineFeed
        case UInt8(ascii: "r"): simple = .carriageReturn
        case UInt8(ascii: "t"): simple = .tab
        case UInt8(ascii: "u"): simple = nil
        default:
            throw error("invalid escape '\\\(describeRaw(at: index + 1))' in a string", at: backslash)
        }
        if let simple {
            scratch.append(simple)
            index += 2
            return
        }
        guard let unit = hexUnit(at: index + 2) else {
            throw error("invalid \\u escape: expected four hexadecimal digits", at: backslash)
        }
        index += 6
        var scalarValue = UInt32(unit)
        if (0xD800...0xDBFF).contains(unit) {
            guard byte(at: index) == .backslash, byte(at: index + 1) == UInt8(ascii: "u"),
                let low = hexUnit(at: index + 2), (0xDC00...0xDFFF).contains(low)
            else {
                throw error(
                    "lone surrogate \(escapeText(at: backslash)): a high surrogate must be followed by a \\u escaped "
                        + "low surrogate", at: backslash)
            }
            index += 6
            scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(unit) {
            throw error(
                "lone surrogate \(escapeText(at: backslash)): a low surrogate must follow a high surrogate",
                at: backslash)
        }
        appendUTF8(scalarValue)
    }

    /// Encodes a scalar value that is known not to be a surrogate and at most U+10FFFF (RFC 3629 §3).
    private mutating func appendUTF8(_ value: UInt32) {
        switch value {
        case 0..<0x80:
            scratch.append(UInt8(value))
        case 0x80..<0x800:
            scratch.append(0xC0 | UInt8(value >> 6))
            scratch.append(0x80 | UInt8(value & 0x3F))
        case 0x800..<0x10000:
            scratch.append(0xE0 | UInt8(value >> 12))
            scratch.append(0x80 | UInt8(value >> 6 & 0x3F))
            scratch.append(0x80 | UInt8(value & 0x3F))
        default:
            scratch.append(0xF0 | UInt8(value >> 18))
            scratch.append(0x80 | UInt8(value >> 12 & 0x3F))
            scratch.append(0x80 | UInt8(value >> 6 & 0x3F))
            scratch.append(0x80 | UInt8(value & 0x3F))
        }
    }

    /// The code unit of four hex digits at `offset`, or nil.
    private func hexUnit(at offset: Int) -> UInt16? {
        guard offset + 4 <= bytes.count else { return nil }
        var unit: UInt16 = 0
        for position in offset..<offset + 4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    /// `\uXXXX` as written, for messages; the four bytes are known to be hex digits.
    private func escapeText(at backslash: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[backslash..<backslash + 6]), as: UTF8.self)
    }

    /// Advances over one well-formed UTF-8 sequence (RFC 3629 §4: no overlong forms, no surrogates, nothing past
    /// U+10FFFF) or throws at its first byte.
    private mutating func skipUTF8Sequence() throws(JSONParseError) {
        guard let length = utf8SequenceLength(at: index) else {
            throw error("invalid UTF-8 at byte 0x\(hex(bytes[index])) in a string", at: index)
        }
        index += length
    }

    func utf8SequenceLength(at offset: Int) -> Int? {
        func continuation(_ position: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            position < bytes.count && range.contains(bytes[position])
        }
        switch bytes[offset] {
        case 0xC2...0xDF:
            return continuation(offset + 1) ? 2 : nil
        case 0xE0:
            return continuation(offset + 1, 0xA0...0xBF) && continuation(offset + 2) ? 3 : nil
        case 0xE1...0xEC, 0xEE...0xEF:
            return continuation(offset + 1) && continuation(offset + 2) ? 3 : nil
        case 0xED:
            return continuation(offset + 1, 0x80...0x9F) && continuation(offset + 2) ? 3 : nil
        case 0xF0:
            return continuation(offset + 1, 0x90...0xBF) && continuation(offset + 2) && continuation(offset + 3)
                ? 4 : nil
        case 0xF1...0xF3:
            return continuation(offset + 1) && continuation(offset + 2) && continuation(offset + 3) ? 4 : nil
        case 0xF4:
            return continuation(offset + 1, 0x80...0x8F) && continuation(offset + 2) && continuation(offset + 3)
                ? 4 : nil
        default:
            return nil
        }
    }
}
