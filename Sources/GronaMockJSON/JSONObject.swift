/// A JSON object whose members stay in document order, so that a configuration read from a workspace file is
/// signed and served in the order its author wrote it, and two serializations of one object are identical.
///
/// Keys are compared by their UTF-8 bytes, not by Swift's canonical equivalence: RFC 8259 §8.3 compares strings
/// code unit by code unit, and `"é"` and `"e\u{301}"` are two different keys to every other JSON implementation.
/// The mutation helpers keep keys unique; the parser rejects duplicates.
public struct JSONObject: Sendable, Equatable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    public typealias Member = (key: String, value: JSONValue)

    public private(set) var members: [Member]

    public init() {
        members = []
    }

    /// A later member with the key of an earlier one replaces the earlier one's value, in the earlier position.
    public init(_ members: [Member]) {
        self.members = []
        self.members.reserveCapacity(members.count)
        for member in members { set(member.key, member.value) }
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        members = []
        members.reserveCapacity(elements.count)
        for (key, value) in elements { set(key, value) }
    }

    /// For the parser, which has already rejected duplicate keys.
    init(uniqueMembers: [Member]) {
        members = uniqueMembers
    }

    public var startIndex: Int { members.startIndex }
    public var endIndex: Int { members.endIndex }
    public subscript(position: Int) -> Member { members[position] }

    public var keys: [String] { members.map(\.key) }

    /// The position of the member named `key`.
    public func index(forKey key: String) -> Int? {
        members.firstIndex { JSONObject.sameKey($0.key, key) }
    }

    /// The value of the member named `key`. Setting nil removes the member.
    public subscript(key: String) -> JSONValue? {
        get {
            for member in members where JSONObject.sameKey(member.key, key) { return member.value }
            return nil
        }
        set {
            if let newValue { set(key, newValue) } else { remove(key) }
        }
    }

    /// Replaces the value of the member named `key` in its position, or appends a new member at the end.
    public mutating func set(_ key: String, _ value: JSONValue) {
        if let position = index(forKey: key) {
            members[position].value = value
        } else {
            members.append((key, value))
        }
    }

    /// Removes the member named `key`, keeping the order of the others, and returns its value.
    @discardableResult
    public mutating func remove(_ key: String) -> JSONValue? {
        guard let position = index(forKey: key) else { return nil }
        return members.remove(at: position).value
    }

    /// Same members in the same order: equal objects serialize to the same bytes.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for (left, right) in zip(lhs.members, rhs.members) {
            guard sameKey(left.key, right.key), left.value == right.value else { return false }
        }
        return true
    }

    /// Byte equality of the UTF-8 forms (RFC 8259 §8.3). Strings equal byte for byte are also canonically
    /// equal, so `==` rules out most keys at once (for two ASCII strings it compares their bytes directly);
    /// only an apparent match has its bytes checked. The generic byte comparison for every member was the
    /// event loops' largest cost when validating events, a dozen lookups per event.
    static func sameKey(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count, lhs == rhs else { return false }
        // In place (a short string on the stack): the UTF-8 views' generic comparison cost as much as all the
        // rest of a lookup.
        let inPlace = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in left.elementsEqual(right) }
        }
        if let inPlace, let same = inPlace { return same }
        return lhs.utf8.elementsEqual(rhs.utf8)
    }
}
