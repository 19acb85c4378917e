/// Header fields in the order they arrived, looked up case-insensitively (RFC 9110 §5.1).
///
/// A list, not a dictionary: order matters for repeated fields, and a request rarely has more than a dozen,
/// where a linear scan beats hashing.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    /// Appends a field, keeping any earlier one of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field of this name with one.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append((name: name, value: value))
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { Self.namesMatch($0.name, name) }
    }

    /// The first value of the field, or nil.
    public subscript(name: String) -> String? {
        fields.first { Self.namesMatch($0.name, name) }?.value
    }

    /// Every value of the field, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool {
        fields.contains { Self.namesMatch($0.name, name) }
    }

    /// The comma-separated list elements of every field of this name, trimmed and lowercased
    /// (for `Connection`, `Transfer-Encoding`, `Accept-Encoding` and the like).
    public func tokens(_ name: String) -> [String] {
        values(name).flatMap { value in
            value.split(separator: ",").map { $0.trimmingASCIIWhitespace().lowercasedASCII() }
        }.filter { !$0.isEmpty }
    }

    /// ASCII case-insensitive comparison without allocating: field names are tokens, so ASCII suffices.
    static func namesMatch(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                guard x.count == y.count else { return false }
                for i in 0..<x.count where asciiLowercase(x[i]) != asciiLowercase(y[i]) {
                    return false
                }
                return true
            }
        }
    }
}

@inline(__always)
func asciiLowercase(_ byte: UInt8) -> UInt8 {
    byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
}

extension StringProtocol {
    /// Trims spaces and horizontal tabs, the optional whitespace of HTTP (RFC 9110 §5.6.3).
    package func trimmingASCIIWhitespace() -> Substring {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return slice
    }

    package func lowercasedASCII() -> String {
        String(decoding: utf8.map(asciiLowercase), as: UTF8.self)
    }
}
