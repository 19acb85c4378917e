/// A vocabulary of the contract: the snake_case names one field may hold (contract §1), declared once as an
/// enum. `allCases` lists the names this version knows, in the contract's order (messages list them in that
/// order, and `VocabularyDocumentationTests` walks them against the documents); `unknown` keeps any other name
/// exactly as it was sent, because a newer SDK or configuration may use names this version has never heard of
/// (contract §4: a decision type a newer SDK may know). Reading a name never fails: whether an unknown one is
/// accepted, warned about or rejected is the validator's decision, made where the contract makes it.
///
/// Not `RawRepresentable`, though each has `rawValue` and `init(rawValue:)`: the standard library would then
/// compare and hash them through `rawValue`, a string, where the compiler's own `==` and `hash(into:)`
/// compare the case (these values are compared on the events hot path).
package protocol Vocabulary: CaseIterable, Hashable, Sendable, CustomStringConvertible where AllCases == [Self] {
    /// The name on the wire.
    var rawValue: String { get }
    /// A name this version does not know, as sent: the enum's `case unknown(String)`. Never made with a known
    /// name (`init(rawValue:)` gives that name's own case), so `==` on the cases is `==` on the names.
    static func unknown(_ name: String) -> Self
    /// What the field is called in messages: `screen type`.
    static var noun: String { get }
}

extension Vocabulary {
    /// The case named `name`: a known one, or `unknown(name)`.
    package init(rawValue: String) {
        self = Self.known(rawValue) ?? .unknown(rawValue)
    }

    /// The known case named `name`; nil for any other name.
    package static func known(_ name: String) -> Self? {
        for value in allCases where value.rawValue == name { return value }
        return nil
    }

    /// Whether this version knows the name (it is not `unknown`).
    package var isKnown: Bool { Self.allCases.contains(self) }

    /// The known names in the contract's order, for messages: `info, success, warning`.
    package static var knownNames: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The name on the wire, so that a message can interpolate the value itself.
    package var description: String { rawValue }
}
