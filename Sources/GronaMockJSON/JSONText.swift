/// JSON string literals for the few hand-written bodies and log lines (error bodies, JWS headers, JSON logs),
/// where building a `JSONValue` would cost more than the text.
package enum JSONText {
    /// `text` as a quoted JSON string, escaped by `JSONWriter` (RFC 8259 §7), with U+2028 and U+2029 also
    /// escaped: they are valid JSON but end a line in JavaScript, and these strings end up in logs and pages.
    package static func quoted(_ text: some StringProtocol) -> String {
        var bytes: [UInt8] = []
        JSONWriter.writeString(String(text), to: &bytes)
        let quoted = String(decoding: bytes, as: UTF8.self)
        guard quoted.unicodeScalars.contains(where: { $0 == "\u{2028}" || $0 == "\u{2029}" }) else { return quoted }
        var result = ""
        for scalar in quoted.unicodeScalars {
            switch scalar {
            case "\u{2028}": result += "\\u2028"
            case "\u{2029}": result += "\\u2029"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
