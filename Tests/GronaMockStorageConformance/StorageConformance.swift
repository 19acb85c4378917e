import GronaMock

/// What every `GronaStorage` backend must do, as checks a backend's test target runs against a fresh,
/// empty storage of its own (GRDB runs one suite against `DatabaseQueue` and `DatabasePool` the same way).
///
/// A check throws `ConformanceFailure` naming what differed; it never depends on timing.
public struct StorageConformance: Sendable, CustomStringConvertible {
    public let description: String
    private let body: @Sendable (any GronaStorage) throws -> Void

    init(_ description: String, _ body: @escaping @Sendable (any GronaStorage) throws -> Void) {
        self.description = description
        self.body = body
    }

    /// Runs the check against `storage`, which must be new and empty.
    public func run(on storage: any GronaStorage) throws { try body(storage) }

    public static let checks: [StorageConformance] =
        writingChecks + listingChecks + filterChecks + summaryChecks + revisionChecks + scanChecks
}

/// A check's failure: what was expected and what the backend did.
public struct ConformanceFailure: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}

/// Fails unless `actual == expected`.
func expectEqual<T: Equatable>(_ actual: T, _ expected: T, _ what: String) throws {
    guard actual == expected else { throw ConformanceFailure("\(what): expected \(expected), got \(actual)") }
}

/// Events and batches for the checks: small, valid, and distinct by id.
enum Sample {
    static func event(
        _ id: String, workspace: String = "acme", type: String = "exposure", campaign: String? = "spring",
        variant: String? = "v1", arm: String? = "treatment", install: String = "install-1", timestamp: Int64 = 1_000,
        demo: Bool = false, treatments: [ClaimedTreatment] = [], totalMinor: Int64? = nil
    ) -> EventRecord {
        EventRecord(
            workspaceKey: workspace, eventID: id, type: type, timestamp: timestamp, receivedAt: timestamp + 5,
            correctedTimestamp: timestamp + 1, installID: install, customerID: "customer-1", sessionID: "session-1",
            visitID: "visit-1", campaignID: campaign, variantID: variant, arm: arm, placement: "home_top",
            demo: demo, configRevision: 3, treatments: treatments, totalMinor: totalMinor,
            json: Array("{\"eventID\":\"\(id)\",\"type\":\"\(type)\"}".utf8))
    }

    static func rejection(_ index: Int, workspace: String = "acme") -> RejectedEventRecord {
        RejectedEventRecord(
            workspaceKey: workspace, index: index, eventID: "bad-\(index)", field: "timestamp",
            reason: "must be an integer", receivedAt: 2_000, installID: "install-1",
            json: Array("{\"n\":\(index)}".utf8))
    }

    static func batch(_ events: [EventRecord], rejected: [RejectedEventRecord] = [], workspace: String = "acme")
        -> StorageChange
    {
        .batch(EventBatch(workspaceKey: workspace, accepted: events, rejected: rejected))
    }

    /// `e01`…`e99`: ids whose text order is their number order.
    static func padded(_ number: Int) -> String { number < 10 ? "e0\(number)" : "e\(number)" }

    /// Every stored event matching `filter`, following cursors page by page.
    static func all(
        _ storage: any GronaStorage, _ filter: EventFilter = EventFilter(), limit: Int = 1000, newestFirst: Bool = false
    ) throws -> [StoredEventRow] {
        var page = EventPage()
        page.limit = limit
        page.newestFirst = newestFirst
        var events: [StoredEventRow] = []
        var pages = 0
        repeat {
            let stored = try storage.events(matching: filter, page: page)
            events += stored.rows
            page.cursor = stored.nextCursor
            pages += 1
            guard pages < 10_000 else { throw ConformanceFailure("paging did not end") }
        } while page.cursor != nil
        return events
    }
}
