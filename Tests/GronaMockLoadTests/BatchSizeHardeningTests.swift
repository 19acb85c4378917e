import GronaMock
import Testing

@testable import GronaMockLoad

/// Contract §7: at most 500 events and 512 KiB (after gunzip) per request, or 413. The SDK's size limit is a
/// count (`--batch-size`), but a batch must also stay within the bytes, as an SDK splits its queue: events
/// made large by the configuration (a 12 KB campaign id in each) filled 50-event batches past 512 KiB, which
/// the service refused with 413 and the fleet then abandoned, every event of them.
@Suite struct BatchSizeHardeningTests {
    static let longID = String(repeating: "c", count: 12_000)
    static func campaign(_ placement: Placement) -> String {
        let head = "{\"id\":\"\(longID)-\(placement.rawValue)\",\"status\":\"live\","
        let placed = "\"placement\":\"\(placement.rawValue)\",\"assignment\":{\"unit\":\"install\",\"salt\":\"s\"},"
        let variants = "\"variants\":[{\"id\":\"v1\",\"weight\":10000,\"component\":{\"type\":\"banner\"}}]}"
        return head + placed + variants
    }

    static var payload: String {
        let campaigns: [String] = Placement.allCases.map(campaign)
        return "{\"schemaVersion\":1,\"workspaceKey\":\"hostile-w\",\"revision\":1,\"issuedAt\":1800000000,"
            + "\"campaigns\":[" + campaigns.joined(separator: ",") + "]}"
    }

    @Test func batchesStayWithinTheContractsBytesAndNoneIsRefused() throws {
        let service = try HostileService(payload: Self.payload) { request in
            guard request.path == "/v1/mobile/events" else { return HostileService.response(404, "{}") }
            guard request.body.count <= 512 * 1024 else {
                return HostileService.response(413, "{\"error\":{\"code\":\"payload_too_large\"}}")
            }
            let count = HostileService.eventIDs(request.body).count
            return HostileService.response(200, "{\"accepted\":\(count),\"duplicates\":0,\"rejected\":[]}")
        }
        defer { service.stop() }
        var settings = service.settings(tag: "bs")
        settings.installs = 1
        settings.rate = 100
        settings.batchSize = 50
        settings.batchAge = .seconds(2)
        let result = try FleetRunner(settings: settings).run()
        #expect(result.statistics.eventsLogged > 50)
        #expect(result.statistics[.events].statuses[413, default: 0] == 0)
        #expect(result.statistics.eventsAbandoned == 0)
        #expect(result.statistics.eventsAcknowledged == result.statistics.eventsLogged)
    }
}
