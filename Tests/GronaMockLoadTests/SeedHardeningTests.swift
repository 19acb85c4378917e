import Foundation
import Testing

@testable import GronaMockLoad

/// `--seed` promises the same installs and visits (docs/load-testing.md: "Same seed, same installs, same
/// visits: the two builds see the same traffic"), whatever the service answers. Retries drew their jitter
/// from the visits' generator, so a service that failed some batches was sent other visits afterwards.
@Suite struct SeedHardeningTests {
    final class FirstAttempts: @unchecked Sendable {
        private let lock = NSLock()
        private var seen: Set<String> = []
        /// True the first time a batch (by its first event id) is sent.
        func isFirst(_ id: String) -> Bool { lock.withLock { seen.insert(id).inserted } }
    }

    static func accepted(_ request: HostileService.Request) -> [UInt8] {
        let count = HostileService.eventIDs(request.body).count
        return HostileService.response(200, "{\"accepted\":\(count),\"duplicates\":0,\"rejected\":[]}")
    }

    @Test func theSameSeedMakesTheSameVisitsWhetherOrNotBatchesAreRetried() throws {
        let calm = try HostileService { request in
            request.path == "/v1/mobile/events" ? Self.accepted(request) : HostileService.response(404, "{}")
        }
        defer { calm.stop() }
        let attempts = FirstAttempts()
        let flaky = try HostileService { request in
            guard request.path == "/v1/mobile/events" else { return HostileService.response(404, "{}") }
            let first = HostileService.eventIDs(request.body).first ?? ""
            return attempts.isFirst(first) ? HostileService.response(503, "{}") : Self.accepted(request)
        }
        defer { flaky.stop() }

        let calmResult = try FleetRunner(settings: calm.settings(tag: "sa")).run()
        let flakyResult = try FleetRunner(settings: flaky.settings(tag: "sa")).run()
        #expect(flakyResult.statistics[.events].retries > 0)
        #expect(calmResult.statistics[.events].retries == 0)
        #expect(calmResult.statistics.visitsStarted == flakyResult.statistics.visitsStarted)
        #expect(calmResult.loggedPerInstall == flakyResult.loggedPerInstall)
        #expect(calmResult.statistics.eventsLogged == flakyResult.statistics.eventsLogged)
    }
}
