import GronaMockJSON

/// Something that must hold of the traffic grona-mock received, checked at a `check` step or at the end.
package struct Expectation: Sendable {
    package enum Kind: Sendable {
        /// Stored events matching, counted.
        case events(FieldMatcher, CountRange)
        /// Requests answered matching (`RequestView`), counted, within a window of SDK time (milliseconds since
        /// the start, both ends included), and each at least `spacingMs[i]` after the one before.
        case requests(FieldMatcher, CountRange, window: ClosedRange<Int64>?, spacingMs: [Int64])
        /// The first stored event matching each matcher, in this order of arrival.
        case order([FieldMatcher])
        /// Events the server counted as duplicates of stored ones, over every batch answered 200.
        case duplicates(CountRange)
        /// Events the server refused one by one.
        case rejected(CountRange)
        /// The engine's contract check (docs/violations.md) finds nothing, but for the rules listed.
        case noViolations(except: Set<String>)
    }

    package let kind: Kind
    /// The scenario's sentence for what the SDK should have done, shown with a failure.
    package let why: String?
    package let source: JSONValue
}

/// What a command's result must show (a step's `expect`).
package struct ResultExpectation: Sendable {
    /// The service refused the command (409).
    package var refused = false
    /// By slot (`placement`, or `placement#key`): nil, nothing shown; otherwise a matcher of the content.
    package var slots: [(slot: String, content: FieldMatcher?)] = []
    /// Exactly these offers, each matched by a different one.
    package var offers: [FieldMatcher]?
    /// Fields of the result.
    package var fields: FieldMatcher?
    package var why: String?
    package var source: JSONValue = .null

    package init() {}
}
