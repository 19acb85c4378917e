/// The parser's working state over one input. Not Sendable: it lives for one call on one thread.
///
/// This file reads the structure (arrays, objects, keys, literals) and enforces the depth limit; numbers,
/// strings and the error messages are in the `JSONReader+…` files beside it.
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

    private let maximumDepth: Int
    private var frames: [Frame] = []
    private var values: [JSONValue] = []
    private var keys: [String] = []

    /// Keeping the byte range of each element of one array: the root object's member of a given name
    /// (`JSONParser.parse(_:keepingTextOf:)`). That array, once open, is the only frame at depth 2.
    private enum ElementCapture {
        case off
        /// The member's array has not been opened yet.
        case waiting(member: String)
        /// Inside the array: where the element being read started.
        case inside(elementStart: Int)
        /// The array was closed: a later array at depth 2 is another member's.
        case done
    }

    private var capture: ElementCapture
    /// The elements' ranges so far, in order.
    private(set) var capturedRanges: [Range<Int>] = []
    /// The offset where each value starts, in document order (a container before what it holds), when asked
    /// for (`JSONParser.parseLocating`); nil otherwise, so that the events path records nothing.
    var valueStarts: [Int]?

    // Shared with the extensions in the other files: the input, the position in it, the string scratch.
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    /// Decoded bytes of a string with escapes, reused across strings.
    var scratch: [UInt8] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int, keepingTextOf member: String? = nil) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        capture = member.map { .waiting(member: $0) } ?? .off
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
            if frames.count == 2, case .inside = capture { capture = .inside(elementStart: index) }
            valueStarts?.append(index)
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
                    if frames.count == 1, frames[0].isObject, case .waiting(let member) = capture,
                        let key = keys.last, JSONObject.sameKey(key, member)
                    {
                        capture = .inside(elementStart: index)
                    }
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
                if frames.count == 2, case .inside(let start) = capture { capturedRanges.append(start..<index) }
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
        if frames.count == 2, case .inside = capture { capture = .done }
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
}

@available(*, unavailable)
extension JSONReader: Sendable {}
