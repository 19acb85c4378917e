/// Writes JSON text as UTF-8 bytes, straight into a byte array: payloads are signed and sent as bytes, so going
/// through String would only add a copy.
///
/// Output is deterministic, which a signed payload needs to be served byte-identical until it changes: members in
/// stored order, numbers from their text, strings escaped as RFC 8785 §3.2.2.2 (the JSON Canonicalization Scheme)
/// does it: `\"`, `\\`, `\b`, `\f`, `\n`, `\r` and `\t` in short form, the other control characters as lowercase
/// `\u00xx`, and everything else, non-ASCII included, as plain UTF-8. So a parsed document that was already written
/// this way compactly serializes back to the same bytes.
public enum JSONWriter {
    /// Appends `value` as compact JSON, with no whitespace.
    public static func write(_ value: JSONValue, to output: inout [UInt8]) {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let bool): output.append(contentsOf: bool ? "true".utf8 : "false".utf8)
        case .number(let number): writeNumber(number, to: &output)
        case .string(let string): writeString(string, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                write(element, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (position, member) in object.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                writeString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                write(member.value, to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `value` with two-space indentation and `": "` after keys, for people reading CLI output. Empty
    /// arrays and objects stay `[]` and `{}`; no newline is written after the value.
    public static func writePretty(_ value: JSONValue, to output: inout [UInt8]) {
        writePretty(value, level: 0, to: &output)
    }

    private static func writePretty(_ value: JSONValue, level: Int, to output: inout [UInt8]) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                newline(level: level + 1, to: &output)
                writePretty(element, level: level + 1, to: &output)
            }
            newline(level: level, to: &output)
            output.append(UInt8(ascii: "]"))
        case .object(let object) where !object.isEmpty:
            output.append(UInt8(ascii: "{"))
            for (position, member) in object.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                newline(level: level + 1, to: &output)
                writeString(member.key, to: &output)
                output.append(contentsOf: ": ".utf8)
                writePretty(member.value, level: level + 1, to: &output)
            }
            newline(level: level, to: &output)
            output.append(UInt8(ascii: "}"))
        default:
            write(value, to: &output)
        }
    }

    private static func newline(level: Int, to output: inout [UInt8]) {
        output.append(0x0A)
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: level * 2))
    }

    /// Appends a number's text. An Int64 is written digit by digit, so the common case allocates nothing.
    public static func writeNumber(_ number: JSONNumber, to output: inout [UInt8]) {
        switch number.storage {
        case .text(let text):
            output.append(contentsOf: text.utf8)
        case .integer(let value):
            if value < 0 { output.append(UInt8(ascii: "-")) }
            // Digits made from the right into a buffer of 20 (UInt64's most), then appended at once: an
            // export writes three numbers an event.
            var magnitude = value.magnitude
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
                var start = digits.count
                repeat {
                    start -= 1
                    digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                    magnitude /= 10
                } while magnitude > 0
                output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
            }
        }
    }

    /// Appends `string` quoted and escaped, copying the runs between escapes in bulk.
    public static func writeString(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { writeStringContents($0, to: &output) }
        output.append(UInt8(ascii: "\""))
    }

    /// UTF-8 text escaped as inside a JSON string, without the quotes: for a string written in pieces (a
    /// violation's sentence, `Violation.write(to:)`), which then reads exactly as `writeString` of the whole.
    public static func writeStringContents(_ utf8: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        var runStart = 0
        for position in 0..<utf8.count {
            let byte = utf8[position]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<position]))
            appendEscape(for: byte, to: &output)
            runStart = position + 1
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
    }

    private static func appendEscape(for byte: UInt8, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
        case 0x08: output.append(UInt8(ascii: "b"))
        case 0x09: output.append(UInt8(ascii: "t"))
        case 0x0A: output.append(UInt8(ascii: "n"))
        case 0x0C: output.append(UInt8(ascii: "f"))
        case 0x0D: output.append(UInt8(ascii: "r"))
        default:
            // Only 0x00-0x1F get here, so the first hex digit is 0 or 1.
            output.append(contentsOf: "u00".utf8)
            output.append(UInt8(ascii: "0") + byte >> 4)
            let low = byte & 0x0F
            output.append(low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10)
        }
    }
}

extension JSONValue {
    /// Compact UTF-8 JSON text (see `JSONWriter` for the exact form).
    public func serialized() -> [UInt8] {
        var output: [UInt8] = []
        JSONWriter.write(self, to: &output)
        return output
    }

    /// Indented UTF-8 JSON text for people, without a trailing newline.
    public func prettySerialized() -> [UInt8] {
        var output: [UInt8] = []
        JSONWriter.writePretty(self, to: &output)
        return output
    }
}
