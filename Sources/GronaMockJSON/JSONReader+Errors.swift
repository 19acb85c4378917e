/// Errors: what stands at an offset, said for a person, with its line and column.
extension JSONReader {
    func byte(at offset: Int) -> UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }

    func unexpected(_ expected: String) -> JSONParseError {
        if byte(at: index) == .slash { return error("comments are not allowed in JSON", at: index) }
        return error("expected \(expected), found \(describe(at: index))", at: index)
    }

    func controlCharacter(_ byte: UInt8) -> JSONParseError {
        error("control character 0x\(hex(byte)) in a string must be escaped", at: index)
    }

    /// What stands at `offset`, for a person: `'x'`, `'“' (U+201C)`, `byte 0xFF` or `the end of the input`.
    func describe(at offset: Int) -> String {
        guard let byte = byte(at: offset) else { return "the end of the input" }
        if byte > 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        if byte >= 0x80, let length = utf8SequenceLength(at: offset) {
            let character = String(
                decoding: UnsafeBufferPointer(rebasing: bytes[offset..<offset + length]), as: UTF8.self)
            if let scalar = character.unicodeScalars.first {
                let code = String(scalar.value, radix: 16, uppercase: true)
                return "'\(character)' (U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code))"
            }
        }
        return "byte 0x\(hex(byte))"
    }

    /// The escaped character after a backslash, as text for a message.
    func describeRaw(at offset: Int) -> String {
        guard let byte = byte(at: offset) else { return "" }
        if byte > 0x20 && byte < 0x7F { return String(Character(Unicode.Scalar(byte))) }
        return "<0x\(hex(byte))>"
    }

    func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "0" + digits : digits
    }

    /// Line and column are counted only here, on the error path, so the hot path tracks nothing but an index.
    func error(_ reason: String, at offset: Int) -> JSONParseError {
        var line = 1
        var lineStart = 0
        for position in 0..<offset where bytes[position] == .lineFeed {
            line += 1
            lineStart = position + 1
        }
        var column = 1
        for position in lineStart..<offset where bytes[position] & 0xC0 != 0x80 { column += 1 }
        return JSONParseError(reason: reason, offset: offset, line: line, column: column)
    }
}
