/// Numbers (RFC 8259 §6).
extension JSONReader {
    /// A number in RFC 8259 §6 grammar that is the whole of `text`, for `JSONNumber(text:)`.
    static func number(fromText text: String) -> JSONNumber? {
        var text = text
        return text.withUTF8 { buffer -> JSONNumber? in
            var reader = JSONReader(buffer, maximumDepth: 0)
            guard let first = buffer.first, first == .minus || first.isDigit,
                let number = try? reader.parseNumber(), reader.index == buffer.count
            else { return nil }
            return number
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` (RFC 8259 §6). An integer that fits Int64 is
    /// accumulated while scanning, so the common case makes no String.
    mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = index
        let isNegative = bytes[index] == .minus
        if isNegative { index += 1 }
        guard let leading = byte(at: index), leading.isDigit else {
            throw error("expected a digit after '-', found \(describe(at: index))", at: index)
        }
        var magnitude: UInt64 = 0
        var overflowed = false
        if leading == .zero {
            index += 1
            if let next = byte(at: index), next.isDigit {
                throw error("leading zeros are not allowed in a number", at: start)
            }
        } else {
            while index < bytes.count && bytes[index].isDigit {
                let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[index] &- .zero))
                magnitude = sum
                overflowed = overflowed || overflow1 || overflow2
                index += 1
            }
        }
        var isInteger = true
        if byte(at: index) == .period {
            index += 1
            guard let digit = byte(at: index), digit.isDigit else {
                throw error("expected a digit after the decimal point, found \(describe(at: index))", at: index)
            }
            while index < bytes.count && bytes[index].isDigit { index += 1 }
            isInteger = false
        }
        if let exponent = byte(at: index), exponent | 0x20 == .lowercaseE {
            index += 1
            if byte(at: index) == .plus || byte(at: index) == .minus { index += 1 }
            guard let digit = byte(at: index), digit.isDigit else {
                throw error("expected a digit in the exponent, found \(describe(at: index))", at: index)
            }
            while index < bytes.count && bytes[index].isDigit { index += 1 }
            isInteger = false
        }
        if isInteger && !overflowed {
            if !isNegative && magnitude <= UInt64(Int64.max) {
                return JSONNumber(storage: .integer(Int64(magnitude)))
            }
            // -0 keeps its text: its canonical Int64 text would be "0".
            if isNegative && magnitude != 0 && magnitude <= Int64.min.magnitude {
                return JSONNumber(storage: .integer(Int64(truncatingIfNeeded: 0 &- magnitude)))
            }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        return JSONNumber(storage: .text(text))
    }
}
