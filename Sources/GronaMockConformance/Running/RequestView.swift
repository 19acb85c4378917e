import GronaMock
import GronaMockJSON

/// A request the SDK made, as scenarios match it (docs/conformance.md, "Requests"): one JSON object, so that
/// request expectations and triggers use the same field matchers as events.
///
/// `{"endpoint", "method", "path", "status", "delivery", "at", "retryAfterSeconds", "etag", "headers": {lowercase
/// name: value}}`, and by endpoint: `revision`, `tampered` (config); `customerID`, `grants` (grants); `installID`,
/// `sentAt`, `eventCount`, `accepted`, `duplicates`, `rejected`, `eventIDs`, `types` (events). `at` is when it
/// arrived, in milliseconds of SDK time since the scenario's start.
struct RecordedRequest: Sendable {
    let answered: AnsweredRequest
    let view: JSONValue
    /// The events of a batch answered 200 that were accepted, as sent.
    let acceptedEvents: [JSONValue]
    /// Milliseconds of SDK time since the start.
    let at: Int64
    let startMs: Int64

    init(_ answered: AnsweredRequest, startMs: Int64, skewMs: Int64) {
        self.answered = answered
        self.startMs = startMs
        at = answered.receivedAt &- skewMs &- startMs
        var view: JSONObject = [
            "endpoint": .string(answered.endpoint.rawValue), "method": .string(answered.method),
            "path": .string(answered.path), "status": .number(JSONNumber(answered.status)),
            "delivery": .string(answered.delivery.rawValue), "at": .number(JSONNumber(at)),
        ]
        if let retryAfter = answered.retryAfterSeconds {
            view.set("retryAfterSeconds", .number(JSONNumber(retryAfter)))
        }
        if let etag = answered.etag { view.set("etag", .string(etag)) }
        view.set("headers", .object(JSONObject(answered.headers.map { ($0.name, JSONValue.string($0.value)) })))
        var accepted: [JSONValue] = []
        switch answered.detail {
        case .configuration(let revision, let tampered)?:
            view.set("revision", .number(JSONNumber(revision)))
            view.set("tampered", .bool(tampered))
        case .grants(let customerID, let count)?:
            view.set("customerID", .string(customerID))
            view.set("grants", .number(JSONNumber(count)))
        case .events(let batch)?:
            view.set("installID", .string(batch.installID))
            view.set("sentAt", .number(JSONNumber(batch.sentAt)))
            view.set("eventCount", .number(JSONNumber(batch.events.count)))
            view.set("rejected", .number(JSONNumber(batch.rejectedIndexes.count)))
            if let count = batch.accepted { view.set("accepted", .number(JSONNumber(count))) }
            if let count = batch.duplicates { view.set("duplicates", .number(JSONNumber(count))) }
            view.set("eventIDs", .array(batch.events.map { $0["eventID"] ?? .null }))
            view.set("types", .array(batch.events.map { $0["type"] ?? .null }))
            if answered.status == 200 {
                let rejected = Set(batch.rejectedIndexes)
                accepted = batch.events.enumerated().filter { !rejected.contains($0.offset) }.map(\.element)
            }
        case nil:
            break
        }
        self.view = .object(view)
        acceptedEvents = accepted
    }

    /// One line for a log or an evidence list: `+1000 ms  GET config → 304  rev 2  if-none-match="…"`.
    var line: String {
        var text = "+\(at) ms  \(answered.method) \(answered.endpoint.rawValue) → "
        switch answered.delivery {
        case .dropped: text += "dropped"
        case .truncated: text += "\(answered.status), body cut"
        case .whole: text += "\(answered.status)"
        }
        if let retryAfter = answered.retryAfterSeconds { text += " Retry-After \(retryAfter)" }
        switch answered.detail {
        case .configuration(let revision, let tampered)?: text += "  rev \(revision)" + (tampered ? " (tampered)" : "")
        case .grants(let customerID, let count)?: text += "  \(customerID): \(count) grant\(count == 1 ? "" : "s")"
        case .events(let batch)?:
            let types = batch.events.map { $0["type"]?.stringValue ?? "?" }
            text +=
                "  \(batch.events.count) event\(batch.events.count == 1 ? "" : "s") [\(types.joined(separator: " "))]"
            if let duplicates = batch.duplicates, duplicates > 0 { text += " \(duplicates) duplicate(s)" }
            text += " sentAt +\(batch.sentAt &- startMs)"
        case nil: break
        }
        for (name, value) in answered.headers where name != "content-type" && name != "user-agent" {
            text += "  \(name)=\(value.prefix(60))"
        }
        return text
    }
}
