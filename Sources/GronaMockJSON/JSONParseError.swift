/// Why a JSON text was rejected, and where: the byte offset for programs, line and column for the person who
/// has to fix a workspace file or an SDK build.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A short statement of what was wrong, without the position (`expected ',' or '}' after an object member,
    /// found '"'`).
    public let reason: String
    /// Offset of the offending byte from the start of the input, from 0; the input's length when it ended early.
    public let offset: Int
    /// From 1; lines end at LF (a CRLF file counts the same).
    public let line: Int
    /// From 1, in Unicode scalars rather than bytes, so it matches what an editor shows for non-ASCII text.
    public let column: Int

    public init(reason: String, offset: Int, line: Int, column: Int) {
        self.reason = reason
        self.offset = offset
        self.line = line
        self.column = column
    }

    public var description: String { "\(reason) at line \(line), column \(column)" }
}
