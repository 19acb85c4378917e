// Over 400 lines on purpose: one fuzz target whose invariants (parse, write, round trip, limits, numbers)
// each need their own reference implementation, kept beside the check that uses it.

/// The `json` fuzz target: `JSONParser` (and `JSONWriter`, `JSONNumber`, `JSONText`) on arbitrary bytes.
///
/// Invariants, each a trap when broken:
/// - the parser never crashes and reports every rejection as a thrown `JSONParseError` whose offset, line and
///   column are those the type documents (offset within the input, lines counted at LF, columns in scalars);
/// - its four entry points (`[UInt8]`, an `ArraySlice` in the middle of a larger array, a raw buffer, and a
///   `String` when the bytes are UTF-8) give the same value or the same error (checked for inputs up to
///   `thoroughLimit`, 4 KiB: where an input starts and ends does not depend on its length);
/// - it accepts exactly what `StrictJSON`, an independent recursive-descent reading of RFC 8259 written
///   here (no BOM, no duplicate keys, strict UTF-8, no lone surrogate escapes), accepts, with the same value,
///   and refuses with the depth error exactly the documents that nest deeper than the limit;
/// - an accepted document nests at most `defaultMaximumDepth` deep; with the limit set to its depth it is
///   still accepted, with one less it is refused with the depth error (up to `thoroughLimit`);
/// - written back by `JSONWriter` (compact, and up to `thoroughLimit` pretty) and parsed again, it gives an
///   equal value, and the compact form is a fixed point (writing the re-read value gives the same bytes);
/// - every number keeps its text, and `isInteger`, `int64` and `double` agree with that text;
/// - every string and key, quoted by `JSONText.quoted`, reads back as itself, and every path in the document
///   leads back to its value through `JSONValue.value(at:)` (the first 64 values of each document).
///
/// The checks marked with `thoroughLimit` each parse the input once more; skipping them above 4 KiB keeps the
/// target near 5,000 inputs a second on one core, enough for 10 million inputs in well under an hour, while
/// the differential check, the error positions and the compact round trip still see every input.

func jsonFuzz(_ input: [UInt8]) {
    let parsed = JSONFuzz.parse(input, maximumDepth: JSONParser.defaultMaximumDepth)
    let thorough = input.count <= JSONFuzz.thoroughLimit
    if thorough { JSONFuzz.checkEntryPoints(input, agreeWith: parsed) }

    let verdict = StrictJSON.read(input, maximumDepth: JSONParser.defaultMaximumDepth)
    switch (parsed, verdict) {
    case (.success(let value), .valid(let expected)):
        Fuzz.require(value == expected, "the parser and StrictJSON read different values: \(Fuzz.show(value))")
        Fuzz.require(value.serialized() == expected.serialized(), "equal values serialize differently")
    case (.success(let value), _):
        Fuzz.fail("accepted a document StrictJSON refuses (\(verdict)): \(Fuzz.show(value))")
    case (.failure(let error), .valid):
        Fuzz.fail("refused a valid document: \(error)")
    case (.failure(let error), .tooDeep):
        Fuzz.require(JSONFuzz.isDepthError(error), "a document nested too deep refused for another reason: \(error)")
    case (.failure(let error), .invalid):
        Fuzz.require(!JSONFuzz.isDepthError(error), "an invalid document refused for its depth: \(error)")
    }

    switch parsed {
    case .failure(let error):
        JSONFuzz.checkError(error, in: input)
    case .success(let value):
        JSONFuzz.checkAccepted(value, input: input, thorough: thorough)
    }
}

enum JSONFuzz {
    /// Inputs up to this size also get the checks that cost one more parse each.
    static let thoroughLimit = 4096
    /// How many values of a document `walk` checks.
    static let walkBudget = 64

    static func parse(_ bytes: [UInt8], maximumDepth: Int) -> Result<JSONValue, JSONParseError> {
        Result { () throws(JSONParseError) in try JSONParser(maximumDepth: maximumDepth).parse(bytes) }
    }

    static func isDepthError(_ error: JSONParseError) -> Bool {
        error.reason.hasPrefix("arrays and objects nested deeper than")
    }

    /// The other three ways in give the same answer as `parse([UInt8])`.
    static func checkEntryPoints(_ input: [UInt8], agreeWith expected: Result<JSONValue, JSONParseError>) {
        // Bytes either side that would change the answer if the parser read past the slice's ends.
        let padded = [UInt8(ascii: "[")] + input + [UInt8(ascii: "]"), UInt8(ascii: "1")]
        let slice = padded[1..<input.count + 1]
        let parser = JSONParser()
        let fromSlice = Result { () throws(JSONParseError) in try parser.parse(slice) }
        same(fromSlice, expected, "ArraySlice")
        let fromBuffer = input.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) in try parser.parse(buffer) }
        }
        same(fromBuffer, expected, "UnsafeRawBufferPointer")
        if input.count <= 2048, let text = String(validating: input, as: UTF8.self) {
            same(Result { () throws(JSONParseError) in try parser.parse(text) }, expected, "String")
        }
    }

    private static func same(
        _ result: Result<JSONValue, JSONParseError>, _ expected: Result<JSONValue, JSONParseError>, _ entry: String
    ) {
        switch (result, expected) {
        case (.success(let left), .success(let right)):
            Fuzz.require(left == right, "parse(\(entry)) read another value: \(Fuzz.show(left))")
        case (.failure(let left), .failure(let right)):
            Fuzz.require(left == right, "parse(\(entry)) threw another error: \(left) vs \(right)")
        default:
            Fuzz.fail("parse(\(entry)) disagrees with parse([UInt8]) on accepting the input")
        }
    }

    /// The error says where, as `JSONParseError` documents it.
    static func checkError(_ error: JSONParseError, in input: [UInt8]) {
        Fuzz.require(!error.reason.isEmpty, "an error without a reason")
        Fuzz.require((0...input.count).contains(error.offset), "error offset \(error.offset) outside the input")
        let before = input[..<error.offset]
        let line = 1 + before.count { $0 == 0x0A }
        let lineStart = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        let column = 1 + input[lineStart..<error.offset].count { $0 & 0xC0 != 0x80 }
        Fuzz.require(error.line == line, "error line \(error.line), expected \(line) (\(error))")
        Fuzz.require(error.column == column, "error column \(error.column), expected \(column) (\(error))")
        Fuzz.require(error.description.hasSuffix("at line \(line), column \(column)"), "description: \(error)")
    }

    static func checkAccepted(_ value: JSONValue, input: [UInt8], thorough: Bool) {
        let depth = self.depth(value)
        Fuzz.require(depth <= JSONParser.defaultMaximumDepth, "accepted a document \(depth) deep")
        if depth > 0 && thorough {
            switch parse(input, maximumDepth: depth) {
            case .success(let again): Fuzz.require(again == value, "maximumDepth \(depth) read another value")
            case .failure(let error): Fuzz.fail("refused at maximumDepth \(depth), its own depth: \(error)")
            }
            switch parse(input, maximumDepth: depth - 1) {
            case .success: Fuzz.fail("accepted a document \(depth) deep with maximumDepth \(depth - 1)")
            case .failure(let error): Fuzz.require(isDepthError(error), "maximumDepth \(depth - 1): \(error)")
            }
        }

        let compact = value.serialized()
        // What the events route stores (issue 14): the accepted text compacted in place, and the kept text of
        // each element of the root's `events`, are exactly what writing the values gives.
        Fuzz.require(
            JSONWriter.compacted(input, range: 0..<input.count) == compact,
            "compacting the text is not writing its value: \(Fuzz.show(compact))")
        if let (kept, ranges) = try? JSONParser().parse(input, keepingTextOf: "events") {
            Fuzz.require(kept == value, "keeping the events' text read another value")
            let events = value.objectValue?["events"]?.arrayValue ?? []
            Fuzz.require(ranges.count == events.count, "\(ranges.count) ranges kept for \(events.count) events")
            for (range, event) in zip(ranges, events) {
                Fuzz.require(
                    JSONWriter.compacted(input, range: range) == event.serialized(),
                    "an event's kept text is not the event: \(Fuzz.show(event))")
            }
        } else {
            Fuzz.fail("keeping the events' text refused a document the parser accepts")
        }
        switch parse(compact, maximumDepth: JSONParser.defaultMaximumDepth) {
        case .success(let again):
            Fuzz.require(again == value, "written and read again, the value changed: \(Fuzz.show(compact))")
            Fuzz.require(again.serialized() == compact, "writing is not a fixed point: \(Fuzz.show(compact))")
        case .failure(let error):
            Fuzz.fail("JSONWriter wrote what the parser refuses (\(error)): \(Fuzz.show(compact))")
        }
        Fuzz.require(value.description == String(decoding: compact, as: UTF8.self), "description is not the JSON")
        if thorough {
            let pretty = value.prettySerialized()
            switch parse(pretty, maximumDepth: JSONParser.defaultMaximumDepth) {
            case .success(let again): Fuzz.require(again == value, "pretty-written and read again, the value changed")
            case .failure(let error): Fuzz.fail("writePretty wrote what the parser refuses (\(error))")
            }
        }

        var budget = walkBudget
        walk(value, at: .root, root: value, budget: &budget)
    }

    /// Arrays and objects open at the deepest point: a scalar is 0, `[]` is 1.
    static func depth(_ value: JSONValue) -> Int {
        switch value {
        case .array(let elements): 1 + (elements.map(depth).max() ?? 0)
        case .object(let object): 1 + (object.members.map { depth($0.value) }.max() ?? 0)
        default: 0
        }
    }

    /// Checks the first `budget` values of the tree: paths, numbers, strings and keys.
    private static func walk(_ value: JSONValue, at path: JSONPath, root: JSONValue, budget: inout Int) {
        guard budget > 0 else { return }
        budget -= 1
        Fuzz.require(root.value(at: path) == value, "value(at: \(path)) is not the value there")
        _ = path.description
        switch value {
        case .null, .bool:
            break
        case .number(let number):
            check(number)
        case .string(let string):
            checkQuoted(string)
        case .array(let elements):
            Fuzz.require(value[elements.count] == nil && value[-1] == nil, "an index out of range found a value")
            for (index, element) in elements.enumerated() {
                walk(element, at: path.appending(index), root: root, budget: &budget)
            }
        case .object(let object):
            for (index, member) in object.members.enumerated() {
                checkQuoted(member.key)
                Fuzz.require(object.index(forKey: member.key) == index, "index(forKey:) found another member")
                walk(member.value, at: path.appending(member.key), root: root, budget: &budget)
            }
        }
    }

    /// A number's text reads back as the same number, and its accessors agree with the text.
    static func check(_ number: JSONNumber) {
        let text = number.text
        Fuzz.require(JSONNumber(text: text) == number, "JSONNumber(text: \(text)) is another number")
        let hasFraction = text.utf8.contains { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }
        // Plain integer text: exact by Int64's own reading. A fraction or an exponent: JSON Schema's integer,
        // checked against Double where Double is exact (below 2^53).
        if !hasFraction {
            Fuzz.require(number.isInteger, "isInteger is wrong for \(text)")
            Fuzz.require(number.int64 == Int64(text), "int64 of \(text) is \(String(describing: number.int64))")
        } else if let double = Double(text), double.isFinite, abs(double) < 9_007_199_254_740_992, double != 0 {
            let integral = double.rounded(.towardZero) == double
            let decimalDigits = text.utf8.prefix { $0 | 0x20 != UInt8(ascii: "e") }.count
            // Only when the text has fewer digits than a Double keeps can the Double's answer be the text's.
            if decimalDigits < 15 {
                Fuzz.require(number.isInteger == integral, "isInteger is wrong for \(text)")
                Fuzz.require(
                    number.int64 == (integral ? Int64(double) : nil),
                    "int64 of \(text) is \(String(describing: number.int64))")
            }
        }
        let double = Double(text).flatMap { $0.isFinite ? $0 : nil }
        Fuzz.require(number.double == double, "double of \(text) is \(String(describing: number.double))")
        switch number.storage {
        case .integer(let integer):
            Fuzz.require(String(integer) == text, "integer storage for non-canonical text \(text)")
        case .text(let stored):
            Fuzz.require(Int64(stored).map(String.init) != stored, "text storage for the canonical Int64 \(stored)")
        }
        var written: [UInt8] = []
        JSONWriter.writeNumber(number, to: &written)
        Fuzz.require(written == Array(text.utf8), "writeNumber wrote \(Fuzz.show(written)) for \(text)")
    }

    /// `JSONText.quoted` is JSON that reads back as the string, without a raw U+2028 or U+2029.
    static func checkQuoted(_ string: String) {
        let quoted = JSONText.quoted(string)
        Fuzz.require(
            !quoted.unicodeScalars.contains { $0 == "\u{2028}" || $0 == "\u{2029}" }, "quoted holds U+2028/U+2029")
        switch parse(Array(quoted.utf8), maximumDepth: 1) {
        case .success(let value):
            Fuzz.require(value == .string(string), "JSONText.quoted read back as another string: \(quoted)")
        case .failure(let error):
            Fuzz.fail("JSONText.quoted wrote what the parser refuses (\(error)): \(quoted)")
        }
    }
}

/// An independent reading of RFC 8259 with the parser's documented strictness, to compare verdicts with:
/// recursive descent (its depth is bounded by `maximumDepth`), Swift's own UTF-8 validation, and no code
/// shared with `JSONParser` except `JSONNumber(text:)` to build the numbers it found.
struct StrictJSON {
    enum Verdict: CustomStringConvertible {
        case valid(JSONValue)
        case invalid
        /// Valid so far, until a container opened deeper than the limit.
        case tooDeep

        var description: String {
            switch self {
            case .valid: "valid"
            case .invalid: "invalid"
            case .tooDeep: "too deep"
            }
        }
    }

    private struct Stop: Error {
        let tooDeep: Bool
    }

    private let bytes: [UInt8]
    private let maximumDepth: Int
    private var index = 0

    static func read(_ bytes: [UInt8], maximumDepth: Int) -> Verdict {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return .invalid }
        var reader = StrictJSON(bytes: bytes, maximumDepth: maximumDepth)
        do {
            reader.skipWhitespace()
            let value = try reader.value(depth: 0)
            reader.skipWhitespace()
            return reader.index == bytes.count ? .valid(value) : .invalid
        } catch {
            return error.tooDeep ? .tooDeep : .invalid
        }
    }

    private init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func expect(_ byte: UInt8) throws(Stop) {
        guard current == byte else { throw Stop(tooDeep: false) }
        index += 1
    }

    private mutating func value(depth: Int) throws(Stop) -> JSONValue {
        guard let byte = current else { throw Stop(tooDeep: false) }
        switch byte {
        case UInt8(ascii: "{"):
            guard depth < maximumDepth else { throw Stop(tooDeep: true) }
            index += 1
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                index += 1
                return .object(JSONObject())
            }
            var members: [JSONObject.Member] = []
            var keys: Set<[UInt8]> = []
            while true {
                guard current == UInt8(ascii: "\"") else { throw Stop(tooDeep: false) }
                let key = try string()
                guard keys.insert(key).inserted else { throw Stop(tooDeep: false) }
                skipWhitespace()
                try expect(UInt8(ascii: ":"))
                skipWhitespace()
                members.append((String(decoding: key, as: UTF8.self), try value(depth: depth + 1)))
                skipWhitespace()
                if current == UInt8(ascii: ",") {
                    index += 1
                    skipWhitespace()
                    continue
                }
                try expect(UInt8(ascii: "}"))
                return .object(JSONObject(uniqueMembers: members))
            }
        case UInt8(ascii: "["):
            guard depth < maximumDepth else { throw Stop(tooDeep: true) }
            index += 1
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                index += 1
                return .array([])
            }
            var elements: [JSONValue] = []
            while true {
                elements.append(try value(depth: depth + 1))
                skipWhitespace()
                if current == UInt8(ascii: ",") {
                    index += 1
                    skipWhitespace()
                    continue
                }
                try expect(UInt8(ascii: "]"))
                return .array(elements)
            }
        case UInt8(ascii: "\""):
            return .string(String(decoding: try string(), as: UTF8.self))
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try number())
        default:
            for (word, value) in [("true", JSONValue.bool(true)), ("false", .bool(false)), ("null", .null)]
            where bytes[index...].starts(with: word.utf8) {
                index += word.utf8.count
                return value
            }
            throw Stop(tooDeep: false)
        }
    }

    private func isDigit(_ byte: UInt8?) -> Bool {
        byte.map { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } ?? false
    }

    private mutating func digits() throws(Stop) {
        guard isDigit(current) else { throw Stop(tooDeep: false) }
        while isDigit(current) { index += 1 }
    }

    private mutating func number() throws(Stop) -> JSONNumber {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") {
            index += 1
        } else {
            try digits()
        }
        if current == UInt8(ascii: ".") {
            index += 1
            try digits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            try digits()
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let number = JSONNumber(text: text) else { Fuzz.fail("JSONNumber(text:) refuses the number \(text)") }
        Fuzz.require(number.text == text, "JSONNumber(text: \(text)) keeps another text: \(number.text)")
        return number
    }

    /// The decoded UTF-8 bytes of a string, from its opening quote.
    private mutating func string() throws(Stop) -> [UInt8] {
        index += 1
        var decoded: [UInt8] = []
        var runStart = index
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                try appendRun(from: runStart, to: &decoded)
                index += 1
                return decoded
            case UInt8(ascii: "\\"):
                try appendRun(from: runStart, to: &decoded)
                try escape(into: &decoded)
                runStart = index
            case 0x00..<0x20:
                throw Stop(tooDeep: false)
            default:
                index += 1
            }
        }
        throw Stop(tooDeep: false)
    }

    private func appendRun(from start: Int, to decoded: inout [UInt8]) throws(Stop) {
        let run = bytes[start..<index]
        guard run.allSatisfy({ $0 < 0x80 }) || String(validating: run, as: UTF8.self) != nil else {
            throw Stop(tooDeep: false)
        }
        decoded += run
    }

    private mutating func escape(into decoded: inout [UInt8]) throws(Stop) {
        index += 1
        guard let escaped = current else { throw Stop(tooDeep: false) }
        index += 1
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escaped)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard current == UInt8(ascii: "\\") else { throw Stop(tooDeep: false) }
                index += 1
                guard current == UInt8(ascii: "u") else { throw Stop(tooDeep: false) }
                index += 1
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw Stop(tooDeep: false) }
                scalar = 0x10000 + (scalar - 0xD800) * 0x400 + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw Stop(tooDeep: false)
            }
            guard let unicode = Unicode.Scalar(scalar) else { Fuzz.fail("StrictJSON built a bad scalar \(scalar)") }
            decoded += Array(String(Character(unicode)).utf8)
        default:
            throw Stop(tooDeep: false)
        }
    }

    private mutating func hex4() throws(Stop) -> UInt32 {
        guard index + 4 <= bytes.count else { throw Stop(tooDeep: false) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Int(String(UnicodeScalar(bytes[index])), radix: 16) else { throw Stop(tooDeep: false) }
            value = value * 16 + UInt32(digit)
            index += 1
        }
        return value
    }
}
