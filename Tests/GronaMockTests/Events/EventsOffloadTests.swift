import Foundation
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

@testable import GronaMock

/// Large event batches are decoded, parsed and validated on a pool of their own, not on the event loop that
/// read them (`EventsOffload`, issue 29): chosen by the size of their JSON, and answered exactly as on a loop.
@Suite("Events offload")
struct EventsOffloadTests {
    static func offload(_ threshold: Int) -> EventsOffload {
        EventsOffload(threshold: threshold, pool: BlockingPool(threads: 1, name: "test-batch"))
    }

    @Test("a batch goes to the pool by the size of its JSON: a plain body's length, a gzip body's stated size")
    func choosesBySizeOfTheJSON() {
        let offload = Self.offload(64 * 1024)
        defer { offload.pool.stop() }
        let small = Array(#"{"events":[]}"#.utf8)
        let large = Array(("{\"padding\":\"" + String(repeating: "ab", count: 40 * 1024) + "\"}").utf8)
        #expect(!offload.takes(small))
        #expect(offload.takes(large))
        // The large one compresses to a few hundred bytes: its trailer still says what it inflates to.
        let compressed = Gzip.compress(large)
        #expect(compressed.count < 1024)
        #expect(EventsOffload.jsonBytes(compressed) == large.count)
        #expect(offload.takes(compressed))
        #expect(!offload.takes(Gzip.compress(small)))
        // Too short to hold a gzip header and trailer: its own length, whatever it starts with.
        #expect(EventsOffload.jsonBytes([0x1F, 0x8B, 8, 0]) == 4)
    }

    @Test("with every batch on the pool, each refused request gets the answer it gets on a loop, and nothing is kept")
    func refusalsFromThePool() throws {
        let fixture = try MockFixture.standard()
        let everyBatch: (inout GronaMockConfiguration) -> Void = { $0.eventsOffloadBytes = 1 }
        try fixture.withServer(configure: everyBatch) { server in
            for row in EventsEndpointTests.refusedCases {
                let response = try EventsAPI.post(
                    server.port, row.body, contentType: row.contentType, encoding: row.encoding)
                #expect(response.status == row.status, "\(row.name)")
                #expect(EventsAPI.errorCode(response) == row.code, "\(row.name)")
            }
            #expect(try EventsAPI.stored(server.port).isEmpty)
        }
    }

    @Test("a gzip batch of 500 events over the threshold is inflated on the pool, accepted and stored")
    func largeBatchFromThePool() throws {
        let fixture = try MockFixture.standard()
        let largeBatches: (inout GronaMockConfiguration) -> Void = { $0.eventsOffloadBytes = 64 * 1024 }
        try fixture.withServer(configure: largeBatches) { server in
            let events = (0..<500).map { SampleEvents.placementEvent("exposure", id: "e-\($0)") }
            let body = EventsAPI.envelope(events).serialized()
            #expect(body.count > 64 * 1024)
            let response = try EventsAPI.post(server.port, Gzip.compress(body), encoding: "gzip")
            #expect(response.status == 200)
            #expect(try JSONParser().parse(response.body)["accepted"] == 500)
            #expect(try EventsAPI.stored(server.port).count == 500)
        }
    }
}
