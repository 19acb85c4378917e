/// A strict JSON parser (RFC 8259) for workspace files and event batches.
///
/// Strict because both inputs are machine-written or reviewed documents where leniency only hides bugs: no
/// comments, trailing commas, single quotes, leading zeros, NaN or Infinity; no byte order mark (§8.1 allows
/// refusing it); strings must be valid UTF-8 (§8.1) with every control character escaped (§7) and no lone
/// surrogate escapes (§8.2); and a duplicate key is an error (§4 leaves its meaning to each implementation, so a
/// document with one means different things to the SDK and to the server).
///
/// The parser keeps its own stack of open arrays and objects instead of recursing, so no input can overflow the
/// thread's stack while parsing. `maximumDepth` still matters: releasing or serializing a value recurses once per
/// level, so the limit is what keeps a hostile document from overflowing the stack later.
public struct JSONParser: Sendable {
    public static let defaultMaximumDepth = 64

    /// How many arrays and objects may be open at once: `[[1]]` has depth 2, a scalar depth 0.
    public var maximumDepth: Int

    public init(maximumDepth: Int = JSONParser.defaultMaximumDepth) {
        self.maximumDepth = maximumDepth
    }

    public func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
        let result = bytes.withMemoryRebound(to: UInt8.self) { parse(buffer: $0) }
        return try result.get()
    }

    public func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { parse(buffer: $0) }.get()
    }

    public func parse(_ bytes: ArraySlice<UInt8>) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { parse(buffer: $0) }.get()
    }

    public func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var text = text
        return try text.withUTF8 { parse(buffer: $0) }.get()
    }

    /// Returns a Result because the buffer accessors' closures are not typed-throwing.
    private func parse(buffer: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, JSONParseError> {
        var reader = JSONReader(buffer, maximumDepth: maximumDepth)
        return Result { () throws(JSONParseError) in try reader.parseDocument() }
    }
}

/// The parser's working state over one input. Not Sendable: it lives for one call on one thread.
struct JSONReader {
    /// An array or object that has been opened and not yet closed. Its elements so far sit at the end of
    /// `values` (and its keys at the end of `keys`) from the recorded starts, so closing it moves one contiguous
    /// run into a right-sized array.
    private struct Frame {
        let isObject: Bool
        let valueStart: Int
        let keyStart: Int
        /// Built once an object passes `linearKeyLimit` keys, so that a hostile object with 100,000 keys costs
        /// linear time to check for duplicates, not quadratic.
        var keySet: Set<ByteKey>?
    }

    /// A key hashed and compared by its UTF-8 bytes (RFC 8259 §8.3), unlike String's canonical equivalence.
    private struct ByteKey: Hashable {
        let key: String

        static func == (lhs: ByteKey, rhs: ByteKey) -> Bool {
            JSONObject.sameKey(lhs.key, rhs.key)
        }

        func hash(into hasher: inout Hasher) {
            let hashed: Void? = key.utf8.withContiguousStorageIfAvailable {
                hasher.combine(bytes: UnsafeRawBufferPointer($0))
            }
            if hashed == nil {
                for byte in key.utf8 { hasher.combine(byte) }
            }
            hasher.combine(key.utf8.count)
        }
    }

    private static let linearKeyLimit = 16

    private let bytes: UnsafeBufferPointer<UInt8>
    private let maximumDepth: Int
    private var index = 0
    private var frames: [Frame] = []
    private var values: [JSONValue] = []
    private var keys: [String] = []
    /// Decoded bytes of a string with escapes, reused across strings.
    private var scratch: [UInt8] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

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

    // MARK: - Structure

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF {
            throw error("a byte order mark is not allowed before JSON text", at: 0)
        }
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else {
            if bytes[index] == .slash { throw error("comments are not allowed in JSON", at: index) }
            throw error("unexpected \(describe(at: index)) after the JSON value", at: index)
        }
        return value
    }

    /// One value with everything nested in it. The outer loop starts a value; the inner loop attaches a finished
    /// value to the innermost open container and closes containers until one expects another element.
    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        parsing: while true {
            var value: JSONValue
            // NUL stands for the end of the input: neither can start a value, and parseLiteral tells them apart.
            switch index < bytes.count ? bytes[index] : 0 {
            case .openBrace:
                try checkDepth()
                index += 1
                skipWhitespace()
                if byte(at: index) == .closeBrace {
                    index += 1
                    value = .object(JSONObject())
                } else {
                    frames.append(Frame(isObject: true, valueStart: values.count, keyStart: keys.count))
                    try parseMemberKey(afterComma: false)
                    continue parsing
                }
            case .openBracket:
                try checkDepth()
                index += 1
                skipWhitespace()
                if byte(at: index) == .closeBracket {
                    index += 1
                    value = .array([])
                } else {
                    frames.append(Frame(isObject: false, valueStart: values.count, keyStart: keys.count))
                    continue parsing
                }
            case .quote:
                value = .string(try parseString())
            case .minus, .zero, .one, .two, .three, .four, .five, .six, .seven, .eight, .nine:
                value = .number(try parseNumber())
            default:
                value = try parseLiteral()
            }

            // Only the flag is copied out: a copy of the frame would share its key set and make every insert
            // into it copy the whole set.
            while let isObject = frames.last?.isObject {
                values.append(value)
                skipWhitespace()
                let next = byte(at: index)
                if next == .comma {
                    index += 1
                    skipWhitespace()
                    if isObject {
                        try parseMemberKey(afterComma: true)
                    } else if byte(at: index) == .closeBracket {
                        throw error("a trailing comma before ']' is not allowed", at: index)
                    }
                    continue parsing
                }
                if isObject && next == .closeBrace {
                    index += 1
                    value = .object(closeObject())
                } else if !isObject && next == .closeBracket {
                    index += 1
                    value = .array(closeArray())
                } else if isObject {
                    throw unexpected("',' or '}' after an object member")
                } else {
                    throw unexpected("',' or ']' after an array element")
                }
            }
            return value
        }
    }

    private func checkDepth() throws(JSONParseError) {
        guard frames.count < maximumDepth else {
            throw error("arrays and objects nested deeper than \(maximumDepth) levels", at: index)
        }
    }

    /// Reads `"key":` and leaves the index at the member's value.
    private mutating func parseMemberKey(afterComma: Bool) throws(JSONParseError) {
        guard byte(at: index) == .quote else {
            if afterComma && byte(at: index) == .closeBrace {
                throw error("a trailing comma before '}' is not allowed", at: index)
            }
            if let letter = byte(at: index), letter.isLetter {
                throw error("object keys must be strings in double quotes", at: index)
            }
            throw unexpected(afterComma ? "a string key after ','" : "a string key or '}' after '{'")
        }
        let keyOffset = index
        let key = try parseString()
        try addKey(key, at: keyOffset)
        skipWhitespace()
        guard byte(at: index) == .colon else { throw unexpected("':' after an object key") }
        index += 1
        skipWhitespace()
    }

    private mutating func addKey(_ key: String, at offset: Int) throws(JSONParseError) {
        let frameIndex = frames.count - 1
        let keyStart = frames[frameIndex].keyStart
        let isDuplicate: Bool
        if keys.count - keyStart < JSONReader.linearKeyLimit {
            isDuplicate = keys[keyStart...].contains { JSONObject.sameKey($0, key) }
        } else {
            if frames[frameIndex].keySet == nil {
                frames[frameIndex].keySet = Set(keys[keyStart...].map(ByteKey.init))
            }
            isDuplicate = !(frames[frameIndex].keySet?.insert(ByteKey(key: key)).inserted ?? true)
        }
        if isDuplicate {
            let shown = key.count > 40 ? String(key.prefix(40)) + "…" : key
            throw error("duplicate key \(JSONText.quoted(shown)) in an object", at: offset)
        }
        keys.append(key)
    }

    private mutating func closeArray() -> [JSONValue] {
        let frame = frames.removeLast()
        let elements = Array(values[frame.valueStart...])
        values.removeSubrange(frame.valueStart...)
        return elements
    }

    private mutating func closeObject() -> JSONObject {
        let frame = frames.removeLast()
        var members: [JSONObject.Member] = []
        members.reserveCapacity(values.count - frame.valueStart)
        for (key, value) in zip(keys[frame.keyStart...], values[frame.valueStart...]) {
            members.append((key, value))
        }
        keys.removeSubrange(frame.keyStart...)
        values.removeSubrange(frame.valueStart...)
        return JSONObject(uniqueMembers: members)
    }

    /// JSON's four whitespace bytes only (RFC 8259 §2); a form feed or a no-break space is an error.
    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case .space, .tab, .lineFeed, .carriageReturn: index += 1
            default: return
            }
        }
    }

    // MARK: - Literals

    /// `true`, `false` or `null`, or the most useful error for whatever else stands where a value should.
    private mutating func parseLiteral() throws(JSONParseError) -> JSONValue {
        let start = index
        guard let first = byte(at: start) else { throw unexpected("a value") }
        guard first.isLetter else {
            switch first {
            case .slash: throw error("comments are not allowed in JSON", at: start)
            case .apostrophe: throw error("strings must be in double quotes", at: start)
            case .plus: throw error("a number cannot start with '+'", at: start)
            case .period: throw error("a number must start with a digit, as in 0.5", at: start)
            default: throw unexpected("a value")
            }
        }
        var end = start
        while end < bytes.count && end - start < 32 && bytes[end].isLetter { end += 1 }
        let word = UnsafeBufferPointer(rebasing: bytes[start..<end])
        if word.elementsEqual("true".utf8) {
            index = end
            return .bool(true)
        }
        if word.elementsEqual("false".utf8) {
            index = end
            return .bool(false)
        }
        if word.elementsEqual("null".utf8) {
            index = end
            return .null
        }
        let text = String(decoding: word, as: UTF8.self)
        if text == "NaN" || text == "Infinity" {
            throw error("\(text) is not a JSON number", at: start)
        }
        // The word is not quoted back: input documents hold secrets, and a forgotten quote must not put one
        // into a log line. The position says where to look.
        throw error(
            "a bare word where a value belongs (a string needs quotes; literals are true, false, null)", at: start)
    }

    // MARK: - Numbers

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

    // MARK: - Strings

    /// A string from its opening quote. Strings without escapes, the great majority, become a String straight
    /// from the input bytes; UTF-8 is validated here so that an error can name its offset.
    private mutating func parseString() throws(JSONParseError) -> String {
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

    private func utf8SequenceLength(at offset: Int) -> Int? {
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

    // MARK: - Errors

    private func byte(at offset: Int) -> UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }

    private func unexpected(_ expected: String) -> JSONParseError {
        if byte(at: index) == .slash { return error("comments are not allowed in JSON", at: index) }
        return error("expected \(expected), found \(describe(at: index))", at: index)
    }

    private func controlCharacter(_ byte: UInt8) -> JSONParseError {
        error("control character 0x\(hex(byte)) in a string must be escaped", at: index)
    }

    /// What stands at `offset`, for a person: `'x'`, `'“' (U+201C)`, `byte 0xFF` or `the end of the input`.
    private func describe(at offset: Int) -> String {
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
    private func describeRaw(at offset: Int) -> String {
        guard let byte = byte(at: offset) else { return "" }
        if byte > 0x20 && byte < 0x7F { return String(Character(Unicode.Scalar(byte))) }
        return "<0x\(hex(byte))>"
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "0" + digits : digits
    }

    /// Line and column are counted only here, on the error path, so the hot path tracks nothing but an index.
    private func error(_ reason: String, at offset: Int) -> JSONParseError {
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

@available(*, unavailable)
extension JSONReader: Sendable {}

extension UInt8 {
    fileprivate static let tab: UInt8 = 0x09
    fileprivate static let lineFeed: UInt8 = 0x0A
    fileprivate static let carriageReturn: UInt8 = 0x0D
    fileprivate static let space: UInt8 = 0x20
    fileprivate static let quote = UInt8(ascii: "\"")
    fileprivate static let apostrophe = UInt8(ascii: "'")
    fileprivate static let plus = UInt8(ascii: "+")
    fileprivate static let comma = UInt8(ascii: ",")
    fileprivate static let minus = UInt8(ascii: "-")
    fileprivate static let period = UInt8(ascii: ".")
    fileprivate static let slash = UInt8(ascii: "/")
    fileprivate static let zero = UInt8(ascii: "0")
    fileprivate static let one = UInt8(ascii: "1")
    fileprivate static let two = UInt8(ascii: "2")
    fileprivate static let three = UInt8(ascii: "3")
    fileprivate static let four = UInt8(ascii: "4")
    fileprivate static let five = UInt8(ascii: "5")
    fileprivate static let six = UInt8(ascii: "6")
    fileprivate static let seven = UInt8(ascii: "7")
    fileprivate static let eight = UInt8(ascii: "8")
    fileprivate static let nine = UInt8(ascii: "9")
    fileprivate static let colon = UInt8(ascii: ":")
    fileprivate static let openBracket = UInt8(ascii: "[")
    fileprivate static let backslash = UInt8(ascii: "\\")
    fileprivate static let closeBracket = UInt8(ascii: "]")
    fileprivate static let lowercaseE = UInt8(ascii: "e")
    fileprivate static let openBrace = UInt8(ascii: "{")
    fileprivate static let closeBrace = UInt8(ascii: "}")

    fileprivate var isDigit: Bool { self >= .zero && self <= .nine }
    fileprivate var isLetter: Bool { (self | 0x20) >= UInt8(ascii: "a") && (self | 0x20) <= UInt8(ascii: "z") }
}
