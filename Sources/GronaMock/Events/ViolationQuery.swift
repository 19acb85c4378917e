import GronaMockJSON

/// Which violations `GET /_mock/events/violations` answers with: the filters and the page.
package struct ViolationQuery: Sendable, Hashable {
    /// Only these rules; nil for all.
    package var rules: Set<ViolationRule>?
    /// Only the violations of this install's events (the scan reads only its events).
    package var installID: String?
    /// Only violations with an event of this campaign, or a purchase claiming a treatment of it.
    package var campaignID: String?
    /// The violation's first event's `timestamp`: `since` inclusive, `until` exclusive (Unix epoch ms).
    package var since: Int64?
    package var until: Int64?
    /// Paged when set (1 to `EventPage.maxLimit`): at most this many violations, and a `nextCursor`.
    package var limit: Int?
    var cursor: ViolationCursor?
    /// Counts per rule instead of the violations.
    package var summary = false

    static let parameterNames: Set<String> = [
        "workspace", "rule", "installID", "campaignID", "since", "until", "limit", "cursor", "summary",
    ]

    package init() {}

    /// Reads the query string; an unknown parameter or a bad value is an error naming it.
    package init(parameters: [(name: String, value: String)]) throws(InvalidQuery) {
        for (name, value) in parameters {
            switch name {
            case "workspace": break
            case "rule":
                // An empty list would read as "every rule", the opposite of what a caller who filtered meant.
                guard !value.split(separator: ",").isEmpty else {
                    throw InvalidQuery("rule must name at least one rule (comma-separated).")
                }
                for text in value.split(separator: ",") {
                    guard let rule = ViolationRule(rawValue: String(text)) else {
                        let known = ViolationRule.allCases.map(\.rawValue).joined(separator: ", ")
                        throw InvalidQuery("rule must be one of \(known), not \(Quote.text(String(text))).")
                    }
                    rules = (rules ?? []).union([rule])
                }
            case "installID": installID = value
            case "campaignID": campaignID = value
            case "since", "until":
                guard let milliseconds = Int64(value) else {
                    throw InvalidQuery(
                        "\(name) must be Unix epoch milliseconds (an integer), not \(Quote.text(value)).")
                }
                if name == "since" { since = milliseconds } else { until = milliseconds }
            case "limit":
                guard let number = Int(value), (1...EventPage.maxLimit).contains(number) else {
                    throw InvalidQuery("limit must be from 1 to \(EventPage.maxLimit).")
                }
                limit = number
            case "cursor":
                guard let cursor = ViolationCursor(text: value) else {
                    throw InvalidQuery("cursor must be a nextCursor this endpoint returned.")
                }
                self.cursor = cursor
            case "summary":
                guard value == "true" || value == "false" else { throw InvalidQuery("summary must be true or false.") }
                summary = value == "true"
            default:
                throw InvalidQuery(
                    "Unknown parameter \(Quote.text(name)); this endpoint takes "
                        + "\(Self.parameterNames.sorted().joined(separator: ", ")).")
            }
        }
        if summary && (cursor != nil || limit != nil) {
            // A summary counts every violation at once; from a cursor it would count only what is left.
            throw InvalidQuery("summary=true counts every violation in one answer and takes no limit or cursor.")
        }
        if cursor != nil && limit == nil { limit = 100 }
    }

    /// Whether a violation found passes the filters the scan did not apply itself.
    func admits(_ violation: Violation, _ facts: (Int64) -> EventFacts?) -> Bool {
        if let rules, !rules.contains(violation.rule) { return false }
        if since != nil || until != nil {
            guard let first = violation.events.first, let time = facts(first)?.timestamp else { return false }
            if let since, time < since { return false }
            if let until, time >= until { return false }
        }
        if let campaignID {
            return violation.events.contains { facts($0)?.campaigns.contains(campaignID) == true }
        }
        return true
    }
}

/// What the filters need to know of an event a violation names, kept for the events of the visit at hand.
struct EventFacts {
    var timestamp: Int64
    /// Its campaign, or the campaigns a purchase claims treatments of.
    var campaigns: [String]
}

/// Where the next page starts: the snapshot bound (so every page checks the same events), the first event
/// of the visit the page stopped in, and how many of that visit's violations were already answered. Opaque
/// to clients: base64url of a small JSON array.
struct ViolationCursor: Sendable, Hashable {
    var throughSequence: Int64
    var position: EventScanPosition
    var skip: Int

    init(throughSequence: Int64, position: EventScanPosition, skip: Int) {
        self.throughSequence = throughSequence
        self.position = position
        self.skip = skip
    }

    init?(text: String) {
        guard let bytes = Base64.urlDecode(text), let value = try? JSONParser().parse(bytes),
            let items = value.arrayValue, items.count == 5, let through = items[0].int64Value,
            let install = items[1].stringValue, let sequence = items[3].int64Value, let skip = items[4].int64Value,
            through >= 0, sequence >= 0, (0...Int64(Int32.max)).contains(skip)
        else { return nil }
        let visit = items[2].stringValue
        guard visit != nil || items[2].isNull else { return nil }
        self.init(
            throughSequence: through,
            position: EventScanPosition(installID: install, visitID: visit, sequence: sequence),
            skip: Int(skip))
    }

    var text: String {
        let value: JSONValue = [
            .number(JSONNumber(throughSequence)), .string(position.installID),
            position.visitID.map(JSONValue.string) ?? .null, .number(JSONNumber(position.sequence)),
            .number(JSONNumber(Int64(skip))),
        ]
        return Base64.urlEncode(value.serialized())
    }
}
