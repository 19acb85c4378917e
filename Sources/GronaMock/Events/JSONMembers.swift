import GronaMockJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The values of a few top-level members of a stored event's JSON, found by skimming its bytes instead of
/// building the whole document: the violation check and the export read millions of events and need at
/// most four fields that have no column, and building every key and value as `JSONValue` was most of a
/// scan's time (issue 18).
///
/// Only for JSON the server stored, which `JSONParser` already accepted (one object, no duplicate key), so
/// skimming need not validate. A key written with an escape (`"scr\u0065en"`) is not matched by its bytes:
/// `ranges` answers nil for such a document, and the caller parses it whole.
enum JSONMembers {
    /// For each of `keys`, the byte range of its value at the top level of `json`, nil where absent; nil
    /// altogether when the text is not an object or a key holds an escape.
    static func ranges(in json: ArraySlice<UInt8>, keys: [StaticString]) -> [Range<Int>?]? {
        var found: [Range<Int>?] = []
        return ranges(in: json, keys: keys, into: &found) ? found : nil
    }

    /// `ranges`, written into `found` (its storage reused): false where `ranges` answers nil. A scan skims every
    /// event it reads, and a new array each time was an allocation and a free per event.
    static func ranges(in json: ArraySlice<UInt8>, keys: [StaticString], into found: inout [Range<Int>?]) -> Bool {
        found.removeAll(keepingCapacity: true)
        found.append(contentsOf: repeatElement(nil, count: keys.count))
        return json.withUnsafeBufferPointer { buffer in skim(buffer, keys: keys, base: json.startIndex, into: &found) }
    }

    /// False only when no top-level member of `json` can be one of `keys`: none of them appears quoted
    /// anywhere in its bytes, and nothing is escaped (an escape could spell one). One pass with no state,
    /// cheaper than `ranges`, for callers that mostly find none (the export, whose events rarely hold a
    /// name the server adds).
    static func mayHold(_ keys: [StaticString], in json: ArraySlice<UInt8>) -> Bool {
        json.withUnsafeBufferPointer { buffer in
            for index in 0..<buffer.count {
                switch buffer[index] {
                case UInt8(ascii: "\\"):
                    return true
                case UInt8(ascii: "\""):
                    if keys.contains(where: { quoted($0, in: buffer, at: index + 1) }) { return true }
                default:
                    continue
                }
            }
            return false
        }
    }

    /// Whether `key` and a closing quote start at `start`.
    private static func quoted(_ key: StaticString, in json: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        let length = key.utf8CodeUnitCount
        guard start + length < json.count, json[start + length] == UInt8(ascii: "\""),
            let base = json.baseAddress
        else { return false }
        return memcmp(base + start, key.utf8Start, length) == 0
    }

    /// `ranges` over the bytes themselves (positions from 0, answered from `base`): the scan runs once per
    /// stored event read, so it reads without the bounds checks of a slice.
    private static func skim(
        _ json: UnsafeBufferPointer<UInt8>, keys: [StaticString], base: Int, into found: inout [Range<Int>?]
    ) -> Bool {
        var index = skipSpace(json, 0)
        guard index < json.count, json[index] == UInt8(ascii: "{") else { return false }
        index += 1
        while true {
            index = skipSpace(json, index)
            guard index < json.count else { return false }
            if json[index] == UInt8(ascii: "}") { return true }
            if json[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard json[index] == UInt8(ascii: "\"") else { return false }
            let keyStart = index + 1
            var keyEnd = keyStart
            while keyEnd < json.count && json[keyEnd] != UInt8(ascii: "\"") {
                if json[keyEnd] == UInt8(ascii: "\\") { return false }
                keyEnd += 1
            }
            guard keyEnd < json.count else { return false }
            index = skipSpace(json, keyEnd + 1)
            guard index < json.count, json[index] == UInt8(ascii: ":") else { return false }
            let valueStart = skipSpace(json, index + 1)
            guard let valueEnd = skipValue(json, valueStart), valueEnd > valueStart else { return false }
            let key = UnsafeBufferPointer(rebasing: json[keyStart..<keyEnd])
            for (position, wanted) in keys.enumerated() where found[position] == nil && equal(key, wanted) {
                found[position] = (base + valueStart)..<(base + valueEnd)
            }
            index = valueEnd
        }
    }

    /// The text of a string value without escapes, read in place; otherwise parsed (nil if not a string).
    static func string(_ json: ArraySlice<UInt8>, _ range: Range<Int>?) -> String? {
        guard let range, range.count >= 2, json[range.lowerBound] == UInt8(ascii: "\"") else { return nil }
        let inner = json[(range.lowerBound + 1)..<(range.upperBound - 1)]
        if !inner.contains(UInt8(ascii: "\\")) { return String(decoding: inner, as: UTF8.self) }
        return (try? JSONParser().parse(json[range]))?.stringValue
    }

    /// The value at `range`, parsed on its own (nil when absent).
    static func value(_ json: ArraySlice<UInt8>, _ range: Range<Int>?) -> JSONValue? {
        guard let range else { return nil }
        return try? JSONParser().parse(json[range])
    }

    /// Length and first byte before `memcmp`: most of an event's keys share a length with a wanted one
    /// (`eventID` and `preview`, `type` and `demo`), few share its first byte too.
    private static func equal(_ key: UnsafeBufferPointer<UInt8>, _ wanted: StaticString) -> Bool {
        guard key.count == wanted.utf8CodeUnitCount, let start = key.baseAddress else { return false }
        guard key.count > 0, start.pointee == wanted.utf8Start.pointee else { return key.count == 0 }
        return memcmp(start, wanted.utf8Start, key.count) == 0
    }

    private static func skipSpace(_ json: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
        var index = start
        while index < json.count {
            switch json[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return index
            }
        }
        return index
    }

    /// Past the closing quote of the string whose text starts at `start` (`json.count` past the end when it
    /// has none). Most of an event's bytes are inside strings, so the quote is found with `memchr`, which reads
    /// many bytes a step; only when a backslash stands right before it (an escaped quote, or an escaped
    /// backslash that ends the text) is the text walked byte by byte, escapes skipped.
    private static func endOfString(_ json: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
        guard start < json.count, let base = json.baseAddress else { return json.count }
        guard let found = memchr(base + start, Int32(UInt8(ascii: "\"")), json.count - start) else {
            return json.count
        }
        let quote = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        if quote == start || json[quote - 1] != UInt8(ascii: "\\") { return quote + 1 }
        var index = start
        while index < json.count && json[index] != UInt8(ascii: "\"") {
            index += json[index] == UInt8(ascii: "\\") ? 2 : 1
        }
        return index + 1
    }

    /// Where the value starting at `start` ends: past its closing quote or bracket, or at the delimiter that
    /// ends a number or literal.
    private static func skipValue(_ json: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        var index = start
        var depth = 0
        while index < json.count {
            let byte = json[index]
            switch byte {
            case UInt8(ascii: "\""):
                index = endOfString(json, index + 1)
                if depth == 0 { return min(index, json.count) }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return index }
                depth -= 1
                index += 1
                if depth == 0 { return index }
            case UInt8(ascii: ","), 0x20, 0x09, 0x0A, 0x0D:
                if depth == 0 { return index }
                index += 1
            default:
                index += 1
            }
        }
        return depth == 0 ? index : nil
    }
}
