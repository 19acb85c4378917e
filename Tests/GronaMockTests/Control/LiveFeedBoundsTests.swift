import Foundation
import GronaMock
import GronaMockJSON
import GronaMockTestSupport
import Testing

/// The live feed's memory is bounded by bytes as well as by events, and a viewer's piece by bytes as well as
/// by batches: SDK events may be 32 KiB each (docs/dashboard.md).
@Suite("GET /_mock/events/live: bounds in bytes")
struct LiveFeedBoundsTests {
    /// `count` exposures of about `bytes` bytes each, numbered from `batch`.
    static func bigEvents(_ batch: Int, count: Int, bytes: Int) -> [JSONValue] {
        let note = String(repeating: "n", count: bytes)
        return (0..<count).map {
            SampleEvents.placementEvent("exposure", id: "big-\(batch)-\($0)", extra: [("note", .string(note))])
        }
    }

    @Test("the feed drops its oldest batches past feedBytes, whatever their count: a viewer from 0 is told")
    func feedKeepsItsBytes() throws {
        // 8 batches of about 32 KB against 64 KiB: the feed keeps two or three of them, not all 32 events.
        try LiveEventsTests.withServer(.init(heartbeat: .seconds(60), feedBytes: 64 * 1024)) { server in
            for batch in 0..<8 {
                try LiveEventsTests.post(server.port, Self.bigEvents(batch, count: 4, bytes: 8_000))
            }
            let viewer = try LiveStreamClient(port: server.port, query: "after=0")
            let messages = try viewer.read(until: 1) { $0.event == "gap" }
            let gap = messages.first { $0.event == "gap" }
            #expect(gap?.json?["missed"]?.int64Value ?? 0 >= 20)
        }
    }

    @Test("a backlog of large batches comes in pieces of a few hundred KiB, not one of megabytes")
    func piecesStaySmall() throws {
        try LiveEventsTests.withServer(.init(heartbeat: .seconds(60))) { server in
            // 20 batches of 16 events of 30 KB: about 10 MB, within the feed's bytes.
            for batch in 0..<20 {
                try LiveEventsTests.post(server.port, Self.bigEvents(batch, count: 16, bytes: 30_000))
            }
            let viewer = try LiveStreamClient(port: server.port, query: "after=0")
            var events = 0
            var largest = 0
            while events < 320, let chunk = try viewer.client.readChunk() {
                largest = max(largest, chunk.count)
                events +=
                    String(decoding: chunk, as: UTF8.self).components(separatedBy: "\nevent: accepted\n").count - 1
            }
            #expect(events == 320)
            // One piece is at most 256 KiB plus the batch that crossed it (under 512 KiB).
            #expect(largest < 800 * 1024)
        }
    }
}
