/// A JSON number (RFC 8259 §6) that keeps its exact text, so that an integer beyond Int64, a long decimal or
/// `-0` read from a workspace file is served again byte for byte instead of through a lossy Double.
///
/// Equality is equality of the text (`1`, `1.0` and `1e0` are three different numbers here), which keeps one
/// invariant for the whole module: two `JSONValue`s are equal exactly when they serialize to the same bytes.
/// Compare values numerically through `int64` (an integer however it is written, as JSON Schema reads one:
/// `JSONNumber+Integral.swift`) or `double`.
///
/// Non-finite doubles cannot be constructed (`init?(_: Double)` fails for them): JSON has no NaN or Infinity,
/// and a number that cannot be written must not be able to reach a signed payload.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    enum Storage: Sendable, Hashable {
        /// An integer whose canonical decimal text is its source text: every integer that fits Int64 except
        /// `-0`. Keeping these as machine integers spares the hot events path a String per timestamp.
        case integer(Int64)
        /// Every other number, as RFC 8259 text. Never the canonical text of an Int64, so that synthesized
        /// equality of the storage is equality of the text.
        case text(String)
    }

    let storage: Storage

    init(storage: Storage) {
        self.storage = storage
    }

    public init(_ value: Int64) {
        storage = .integer(value)
    }

    public init(_ value: Int) {
        storage = .integer(Int64(value))
    }

    public init(integerLiteral value: Int64) {
        storage = .integer(value)
    }

    /// Fails for NaN and the infinities, which JSON cannot represent. The text is Swift's shortest description
    /// that reads back as the same Double (`0.1`, `1e-05`, `3.0`, `-0.0`): it always holds `.` or `e`, so a
    /// Double never passes for an integer.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        storage = .text(value.description)
    }

    /// Fails unless `text` is exactly one number in RFC 8259 §6 grammar, with no surrounding whitespace.
    public init?(text: String) {
        guard let number = JSONReader.number(fromText: text) else { return nil }
        self = number
    }

    /// The number's JSON text: its source text when parsed, canonical text when constructed.
    public var text: String {
        switch storage {
        case .integer(let value): String(value)
        case .text(let text): text
        }
    }

    public var description: String { text }

    /// The nearest Double; nil when the magnitude is beyond Double's range (`1e400`), where the text is kept
    /// exactly but no Double can stand for it.
    public var double: Double? {
        switch storage {
        case .integer(let value):
            return Double(value)
        case .text(let text):
            guard let value = Double(text), value.isFinite else { return nil }
            return value
        }
    }
}
