/// Where each value of a parsed document starts, by its JSON path: what a checker that reports problems by
/// path (a scenario file, a workspace file) needs to say `scenario.json:12` as well, so that a person finds
/// the value in an editor. Made by `JSONParser.parseLocating`; the hot parsing paths record nothing.
public struct JSONLocations: Sendable {
    /// A value's place in the text: line and column from 1, the column in Unicode scalars as in
    /// `JSONParseError`.
    public struct Location: Sendable, Equatable, CustomStringConvertible {
        public let line: Int
        public let column: Int

        public init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }

        public var description: String { "line \(line), column \(column)" }
    }

    private var byPath: [JSONPath: Location] = [:]

    /// An empty table: every lookup falls back to nothing (for a document built in code).
    public init() {}

    /// Pairs the values of `value`, walked in document order (a container before its members), with `starts`,
    /// the offsets the parser recorded in the same order; both orders are the text's, so one pass over the
    /// bytes counts every line.
    init(_ value: JSONValue, starts: [Int], in bytes: UnsafeBufferPointer<UInt8>) {
        var paths: [JSONPath] = []
        paths.reserveCapacity(starts.count)
        Self.walk(value, at: .root, into: &paths)
        var line = 1
        var column = 1
        var position = 0
        for (path, offset) in zip(paths, starts) {
            while position < offset && position < bytes.count {
                if bytes[position] == 0x0A {
                    line += 1
                    column = 1
                } else if bytes[position] & 0xC0 != 0x80 {
                    column += 1
                }
                position += 1
            }
            byPath[path] = Location(line: line, column: column)
        }
    }

    /// Every path of `value` in document order. The depth is the parser's limit, so recursing is bounded.
    private static func walk(_ value: JSONValue, at path: JSONPath, into paths: inout [JSONPath]) {
        paths.append(path)
        switch value {
        case .object(let object):
            for member in object { walk(member.value, at: path.appending(member.key), into: &paths) }
        case .array(let elements):
            for (index, element) in elements.enumerated() { walk(element, at: path.appending(index), into: &paths) }
        default:
            break
        }
    }

    /// Where the value at `path` starts; for a path the document does not have (a missing member), where its
    /// nearest enclosing value starts, which is where the member belongs.
    public func location(of path: JSONPath) -> Location? {
        var components = path.components
        while true {
            if let location = byPath[JSONPath(components)] { return location }
            guard !components.isEmpty else { return nil }
            components.removeLast()
        }
    }
}
