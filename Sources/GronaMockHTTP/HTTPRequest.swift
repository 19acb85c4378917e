/// A complete request as a handler sees it: the validated head, the whole body, and the route's parameters.
public struct HTTPRequest: Sendable {
    public var head: HTTPRequestHead
    public var body: [UInt8]
    /// Values of the route pattern's `{name}` segments, percent-decoded.
    public var pathParameters: [String: String]
    /// The peer as `address:port`.
    public var remoteAddress: String
    /// The pattern of the route that took the request, as it was registered
    /// (`/v1/mobile/workspaces/{workspaceKey}/config`), so that middleware can tell routes apart by what they
    /// are rather than by their path; empty until the router hands the request to its route.
    public internal(set) var route = ""
    /// What middleware hands to the handlers behind it: one value per type (see `Attachments`).
    public var attachments = Attachments()

    public init(
        head: HTTPRequestHead, body: [UInt8] = [], pathParameters: [String: String] = [:],
        remoteAddress: String = "local"
    ) {
        self.head = head
        self.body = body
        self.pathParameters = pathParameters
        self.remoteAddress = remoteAddress
    }

    public var method: HTTPMethod { head.method }
    public var headers: HTTPHeaders { head.headers }
    public var path: String { String(head.path) }

    /// The query's parameters in order, percent-decoded with `+` as a space (HTML form encoding, which is
    /// what curl and browsers send).
    public var queryItems: [(name: String, value: String)] {
        head.query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count > 1 ? parts[1] : ""
            return (
                name: PercentDecoding.decode(parts[0], plusIsSpace: true) ?? String(parts[0]),
                value: PercentDecoding.decode(value, plusIsSpace: true) ?? String(value)
            )
        }
    }

    /// The first value of a query parameter.
    public func query(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }
}

extension HTTPRequest {
    /// Values that middleware attaches to one request for the handlers behind it, keyed by their type: a
    /// middleware declares a type of its own and sets `request.attachments[Its.self]`, and a handler reads it
    /// back, typed. The core never reads them; a type owned by one module cannot collide with another's.
    ///
    /// A short list rather than a dictionary, and inlinable so that each reader is specialised to its type: a
    /// request carries none or two, and is asked for them on every request to a Grona endpoint, where the
    /// dictionary's hashing and an unspecialised cast were a measurable share of the request.
    public struct Attachments: Sendable {
        @usableFromInline var values: [(key: ObjectIdentifier, value: any Sendable)] = []

        public init() {}

        @inlinable
        public subscript<Value: Sendable>(_ type: Value.Type) -> Value? {
            get {
                guard !values.isEmpty else { return nil }
                let key = ObjectIdentifier(type)
                for entry in values where entry.key == key { return entry.value as? Value }
                return nil
            }
            set {
                let key = ObjectIdentifier(type)
                let index = values.firstIndex { $0.key == key }
                switch (index, newValue) {
                case (let index?, let value?): values[index].value = value
                case (let index?, nil): values.remove(at: index)
                case (nil, let value?): values.append((key, value))
                case (nil, nil): break
                }
            }
        }
    }
}

/// Percent-decoding (RFC 3986 §2.1) for path parameters and query values.
enum PercentDecoding {
    /// The decoded text, or nil when an escape is malformed or the bytes are not UTF-8.
    static func decode(_ text: some StringProtocol, plusIsSpace: Bool = false) -> String? {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) })
        else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(0x20)
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
