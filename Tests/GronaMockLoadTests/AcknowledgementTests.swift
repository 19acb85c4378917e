import Testing

@testable import GronaMockLoad

/// A 200 to a batch is the contract's acknowledgement (§7) only when its body says what became of each event:
/// `accepted`, `duplicates` and `rejected` adding up to the batch. A sink that answers `ok` (nginx's
/// `return 200 "ok"`) made every event count as accepted, and a run against it passed as if all were stored.
@Suite struct AcknowledgementTests {
    static func run(answering body: @escaping @Sendable (Int) -> String, tag: String) throws -> LoadStatistics {
        let service = try HostileService { request in
            guard request.path == "/v1/mobile/events" else { return HostileService.response(404, "{}") }
            return HostileService.response(200, body(HostileService.eventIDs(request.body).count))
        }
        defer { service.stop() }
        return try FleetRunner(settings: service.settings(tag: tag)).run().statistics
    }

    @Test(arguments: [
        "ok", "{}", "[]", "{\"accepted\":1}", "{\"accepted\":1,\"duplicates\":0,\"rejected\":{}}",
        "{\"accepted\":1.5,\"duplicates\":0,\"rejected\":[]}",
    ])
    func anAnswerThatIsNotTheContractsIsUnconfirmed(body: String) throws {
        let statistics = try Self.run(answering: { _ in body }, tag: "uc")
        #expect(statistics.eventsAcknowledged > 0)
        #expect(statistics.eventsUnconfirmed == statistics.eventsAcknowledged)
        #expect(statistics.eventsAccepted == 0)
    }

    /// Counts that do not add up to the batch (a fixed `accepted: 50` to a batch of five) are not the batch's.
    @Test func countsThatDoNotAddUpAreUnconfirmed() throws {
        let statistics = try Self.run(
            answering: { count in "{\"accepted\":\(count + 1),\"duplicates\":0,\"rejected\":[]}" }, tag: "ua")
        #expect(statistics.eventsUnconfirmed == statistics.eventsAcknowledged)
        #expect(statistics.eventsAccepted == 0)
    }

    @Test func theContractsAnswerIsConfirmed() throws {
        let statistics = try Self.run(
            answering: { count in "{\"accepted\":\(count),\"duplicates\":0,\"rejected\":[]}" }, tag: "uk")
        #expect(statistics.eventsAcknowledged > 0)
        #expect(statistics.eventsAccepted == statistics.eventsAcknowledged)
        #expect(statistics.eventsUnconfirmed == 0)
    }
}
