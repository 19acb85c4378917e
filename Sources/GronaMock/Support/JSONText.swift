/// Writes JSON string literals (RFC 8259 §7) for the few hand-written bodies on hot paths (error bodies,
/// the events acknowledgement), where going through an encoder would cost more than the answer.
enum JSONText {
    /// `text` as a quoted JSON string, escaping quotes, backslashes and control characters.
    static func quoted(_ text: some StringProtocol) -> String {
        var result = "\""
        result.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        result += "\""
        return result
    }
}
