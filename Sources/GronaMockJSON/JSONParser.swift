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

    /// Parses `bytes`, and also gives the byte range of each element of the array that is the root object's
    /// member `member` (empty when there is no such array), in order: what a caller needs to keep each element's
    /// own text (`JSONWriter.writeCompacting`) without writing it again from its value.
    public func parse(
        _ bytes: [UInt8], keepingTextOf member: String
    ) throws(JSONParseError) -> (value: JSONValue, elements: [Range<Int>]) {
        let result = bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(buffer, maximumDepth: maximumDepth, keepingTextOf: member)
            return Result { () throws(JSONParseError) -> (value: JSONValue, elements: [Range<Int>]) in
                (try reader.parseDocument(), reader.capturedRanges)
            }
        }
        return try result.get()
    }

    /// Parses `bytes`, and also says where each value of the document starts (`JSONLocations`): for documents a
    /// person writes, whose checks name a JSON path, so that a message can give the line to look at too.
    public func parseLocating(_ bytes: [UInt8]) throws(JSONParseError) -> (value: JSONValue, locations: JSONLocations) {
        let result = bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(buffer, maximumDepth: maximumDepth)
            reader.valueStarts = []
            return Result { () throws(JSONParseError) -> (value: JSONValue, locations: JSONLocations) in
                let value = try reader.parseDocument()
                return (value, JSONLocations(value, starts: reader.valueStarts ?? [], in: buffer))
            }
        }
        return try result.get()
    }

    /// Returns a Result because the buffer accessors' closures are not typed-throwing.
    private func parse(buffer: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, JSONParseError> {
        var reader = JSONReader(buffer, maximumDepth: maximumDepth)
        return Result { () throws(JSONParseError) in try reader.parseDocument() }
    }
}
