/// A filter over stored events, read from the inspection API's query string (or the command line's
/// options). Each storage backend turns it into its own query.
public struct EventFilter: Sendable {
    public var workspace: String?
    public var type: String?
    public var campaignID: String?
    public var variantID: String?
    public var arm: String?
    public var placement: String?
    public var installID: String?
    public var customerID: String?
    public var visitID: String?
    /// Event `timestamp` bounds, Unix epoch milliseconds, `since` inclusive and `until` exclusive.
    public var since: Int64?
    public var until: Int64?

    public init() {}

    /// The text fields a filter can match exactly, each with its query parameter's name.
    public enum Field: String, CaseIterable, Sendable {
        case workspace, type, campaignID, variantID, arm, placement, installID, customerID, visitID

        /// The column that holds the field in the events table, the same name in every backend's schema
        /// (`GronaMockSQLite` and `GronaMockPostgres` build their filters from it).
        public var storedColumn: String {
            switch self {
            case .workspace: "workspace_key"
            case .type: "type"
            case .campaignID: "campaign_id"
            case .variantID: "variant_id"
            case .arm: "arm"
            case .placement: "placement"
            case .installID: "install_id"
            case .customerID: "customer_id"
            case .visitID: "visit_id"
            }
        }

        /// The filter's property for the field.
        public var keyPath: WritableKeyPath<EventFilter, String?> {
            switch self {
            case .workspace: \.workspace
            case .type: \.type
            case .campaignID: \.campaignID
            case .variantID: \.variantID
            case .arm: \.arm
            case .placement: \.placement
            case .installID: \.installID
            case .customerID: \.customerID
            case .visitID: \.visitID
            }
        }
    }

    /// The exact-match conditions set, in `Field` order: what a backend turns into its query.
    public var textConditions: [(field: Field, value: String)] {
        Field.allCases.compactMap { field in self[keyPath: field.keyPath].map { (field, $0) } }
    }

    /// Reads the filter from `name=value` pairs; an unknown name or a bad time is an error naming it.
    public init(parameters: [(name: String, value: String)], extra allowed: Set<String> = []) throws(InvalidQuery) {
        for (name, value) in parameters {
            if let field = Field(rawValue: name) {
                // Stored events always carry a valid workspace key (a batch for any other is refused), so a
                // malformed one is a mistake to report, not a filter that silently matches nothing.
                if field == .workspace, !IdentifierKind.workspaceKey.isValid(value) {
                    throw InvalidQuery(InvalidIdentifier(kind: .workspaceKey, text: value, field: "?workspace"))
                }
                self[keyPath: field.keyPath] = value
            } else if name == "since" || name == "until" {
                guard let milliseconds = Int64(value) else {
                    throw InvalidQuery(
                        "\(name) must be Unix epoch milliseconds (an integer), not \(Quote.text(value)).")
                }
                if name == "since" { since = milliseconds } else { until = milliseconds }
            } else if !allowed.contains(name) {
                let known = Field.allCases.map(\.rawValue) + ["since", "until"] + allowed.sorted()
                throw InvalidQuery("Unknown parameter \(Quote.text(name)); known: \(known.joined(separator: ", ")).")
            }
        }
    }
}

/// Paging for listings: at most `limit` rows after (or before) `cursor`, oldest or newest first.
public struct EventPage: Sendable {
    public static let maxLimit = 1000

    public var limit = 100
    public var cursor: Int64?
    public var newestFirst = false

    public init() {}

    static let parameterNames: Set<String> = ["limit", "cursor", "order"]

    init(parameters: [(name: String, value: String)]) throws(InvalidQuery) {
        for (name, value) in parameters {
            switch name {
            case "limit":
                guard let number = Int(value), (1...Self.maxLimit).contains(number) else {
                    throw InvalidQuery("limit must be from 1 to \(Self.maxLimit).")
                }
                limit = number
            case "cursor":
                guard let number = Int64(value) else {
                    throw InvalidQuery("cursor must be a nextCursor this API returned.")
                }
                cursor = number
            case "order":
                guard value == "oldest" || value == "newest" else {
                    throw InvalidQuery("order must be oldest or newest.")
                }
                newestFirst = value == "newest"
            default:
                break
            }
        }
    }
}

/// A filter, page or other query parameter that cannot be read, with a sentence naming it.
public struct InvalidQuery: Error, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) { self.message = message }

    /// A query parameter that should name an identifier and does not.
    package init(_ identifier: InvalidIdentifier) { self.message = "\(identifier)." }

    public var description: String { message }
}
