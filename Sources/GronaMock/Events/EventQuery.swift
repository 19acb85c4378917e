import GronaHTTP
import GronaJSON

/// A filter over stored events, read from the inspection API's query string (or the command line's
/// options), and the SQL it becomes.
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

    /// The filter parameters a query may carry, by name.
    static var textParameters: [(name: String, column: String, keyPath: WritableKeyPath<EventFilter, String?>)] {
        [
            ("workspace", "workspace_key", \.workspace), ("type", "type", \.type),
            ("campaignID", "campaign_id", \.campaignID),
            ("variantID", "variant_id", \.variantID), ("arm", "arm", \.arm), ("placement", "placement", \.placement),
            ("installID", "install_id", \.installID), ("customerID", "customer_id", \.customerID),
            ("visitID", "visit_id", \.visitID),
        ]
    }

    /// Reads the filter from `name=value` pairs; an unknown name or a bad time is an error naming it.
    public init(parameters: [(name: String, value: String)], extra allowed: Set<String> = []) throws(HTTPError) {
        for (name, value) in parameters {
            if let parameter = Self.textParameters.first(where: { $0.name == name }) {
                self[keyPath: parameter.keyPath] = value
            } else if name == "since" || name == "until" {
                guard let milliseconds = Int64(value) else {
                    throw HTTPError(
                        .badRequest, code: .invalidQuery,
                        message: "\(name) must be Unix epoch milliseconds (an integer), not \(Quote.text(value)).")
                }
                if name == "since" { since = milliseconds } else { until = milliseconds }
            } else if !allowed.contains(name) {
                let known = Self.textParameters.map(\.name) + ["since", "until"] + allowed.sorted()
                throw HTTPError(
                    .badRequest, code: .invalidQuery,
                    message: "Unknown parameter \(Quote.text(name)); known: \(known.joined(separator: ", ")).")
            }
        }
    }

    /// `WHERE …` (or nothing) and its bound values, for the events table.
    func sql(workspaceColumn: String = "workspace_key") -> (clause: String, values: [SQLiteValue]) {
        var conditions: [String] = []
        var values: [SQLiteValue] = []
        for parameter in Self.textParameters {
            guard let value = self[keyPath: parameter.keyPath] else { continue }
            conditions.append("\(parameter.column == "workspace_key" ? workspaceColumn : parameter.column) = ?")
            values.append(.text(value))
        }
        if let since {
            conditions.append("timestamp >= ?")
            values.append(.integer(since))
        }
        if let until {
            conditions.append("timestamp < ?")
            values.append(.integer(until))
        }
        return (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "), values)
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

    init(parameters: [(name: String, value: String)]) throws(HTTPError) {
        for (name, value) in parameters {
            switch name {
            case "limit":
                guard let number = Int(value), (1...Self.maxLimit).contains(number) else {
                    throw HTTPError(
                        .badRequest, code: .invalidQuery, message: "limit must be from 1 to \(Self.maxLimit).")
                }
                limit = number
            case "cursor":
                guard let number = Int64(value) else {
                    throw HTTPError(
                        .badRequest, code: .invalidQuery, message: "cursor must be a nextCursor this API returned.")
                }
                cursor = number
            case "order":
                guard value == "oldest" || value == "newest" else {
                    throw HTTPError(.badRequest, code: .invalidQuery, message: "order must be oldest or newest.")
                }
                newestFirst = value == "newest"
            default:
                break
            }
        }
    }
}
