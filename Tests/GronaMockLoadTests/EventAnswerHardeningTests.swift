import Foundation
import Testing

@testable import GronaMockLoad

/// What a service under test says about a batch (`accepted`, `duplicates`, `rejected`) is its word only about
/// that batch: an id it names that the batch did not hold is not kept, whatever its size.
@Suite struct EventAnswerHardeningTests {
    final class Declared: @unchecked Sendable {
        private let lock = NSLock()
        private var ids: [String] = []
        func add(_ id: String) { lock.withLock { ids.append(id) } }
        var all: [String] { lock.withLock { ids } }
    }

    @Test func rejectedIDsOutsideTheBatchAreNotKept() throws {
        let declared = Declared()
        let service = try HostileService { request in
            guard request.path == "/v1/mobile/events" else { return HostileService.response(404, "{}") }
            let ids = HostileService.eventIDs(request.body)
            guard ids.count >= 2 else {
                return HostileService.response(200, "{\"accepted\":\(ids.count),\"duplicates\":0,\"rejected\":[]}")
            }
            declared.add(ids[0])
            // One of the batch's events, and an id of 100 KB that no batch ever held.
            let bogus = String(repeating: "x", count: 100_000)
            let body =
                "{\"accepted\":\(ids.count - 2),\"duplicates\":0,\"rejected\":[{\"eventID\":\"\(ids[0])\",\"reason\":\"r\"},"
                + "{\"eventID\":\"\(bogus)\",\"reason\":\"r\"}]}"
            return HostileService.response(200, body)
        }
        defer { service.stop() }
        let runner = try FleetRunner(settings: service.settings(tag: "rj"))
        let result = runner.run()
        let named = declared.all
        #expect(!named.isEmpty)
        #expect(result.rejectedEvents.count == named.count)
        let prefix = Array("rj-".utf8)
        for id in named {
            let (install, counter) = try #require(RunVerifier.parse(id, prefix: prefix))
            #expect(result.rejectedEvents.contains(install: install, counter: counter))
        }
    }
}
