import GronaMockJSON

/// One request to a Grona endpoint and its answer, as the SDK met it: what conformance scenarios check
/// ("the second configuration request sent `If-None-Match`", "nothing was sent before `Retry-After` passed")
/// and react to ("after the third events batch, answer 429"). Published on the event stream before the
/// answer's first byte is written, so a listener hears of an answer before the SDK can act on it.
///
/// Published only while a subscriber asks for requests (`EngineEvents.requestsWanted`): a load test's
/// hundred thousand requests a second cost one atomic load each otherwise.
package struct AnsweredRequest: Sendable {
    /// How the answer left.
    package enum Delivery: String, Sendable, Equatable {
        case whole
        /// A `drop` fault: the connection closed with no answer (`status` is 0).
        case dropped
        /// A `truncate` fault: the head, then the body cut short.
        case truncated
    }

    /// What the endpoint's handler noted about the request, when it got that far.
    package enum Detail: Sendable {
        /// The configuration served (or matched by `If-None-Match`): its revision, and whether a configuration
        /// fault replaced the signed document.
        case configuration(revision: Int64, tampered: Bool)
        /// The grants asked for one customer; `count` of them handed out.
        case grants(customerID: String, count: Int)
        case events(EventsDetail)
    }

    /// One events batch as it was sent, and what storing it did.
    package struct EventsDetail: Sendable {
        package let installID: String
        /// The envelope's `sentAt` (the SDK's clock).
        package let sentAt: Int64
        /// The events as the SDK sent them, in order.
        package let events: [JSONValue]
        /// Indexes in `events` of the events refused one by one (none until the batch was validated).
        package var rejectedIndexes: [Int]
        /// Set once the batch was committed (nil when a fault or an error answered before).
        package var accepted: Int?
        package var duplicates: Int?
    }

    package let endpoint: FaultEngine.Endpoint
    /// The workspace the request was for, once the endpoint knew it (nil for a request refused before: an
    /// unknown workspace, a bad secret key, a body that did not parse, a fault of every workspace).
    package let workspace: String?
    package let method: String
    package let path: String
    /// The request's headers that the contract asks an SDK to send (`If-None-Match`, `Accept-Encoding`,
    /// `Content-Encoding`, `Content-Type`, `User-Agent`), by lowercase name. Never `Authorization`: it carries
    /// a secret key.
    package let headers: [(name: String, value: String)]
    /// The mock's clock when the request arrived and when its answer left (Unix epoch milliseconds).
    package let receivedAt: Int64
    package let answeredAt: Int64
    /// The answer's status; 0 when the connection was dropped.
    package let status: Int
    package let delivery: Delivery
    /// The answer's `Retry-After` in seconds, and its `ETag`.
    package let retryAfterSeconds: Int?
    package let etag: String?
    package let detail: Detail?

    /// The request's header `name` (case-insensitive), if it was sent and is kept.
    package func header(_ name: String) -> String? {
        let lowercased = name.lowercased()
        return headers.first { $0.name == lowercased }?.value
    }

    /// The request headers kept, by lowercase name.
    static let keptHeaders = ["if-none-match", "accept-encoding", "content-encoding", "content-type", "user-agent"]
}
