import GronaMockHTTP
import GronaMockPlatform
import GronaMockTestSupport
import Testing

@testable import GronaMock

/// The feed tells its one listener (the viewers' thread) after every committed group: that must cost the same
/// on the ten-thousandth commit as on the first.
@Suite("Live feed: its listener")
struct LiveFeedListenerTests {
    @Test("the listener is reached through as many frames at the thousandth append as at the first")
    func listenerIsNotRewrapped() {
        let feed = LiveFeed(capacity: 10)
        let addresses = Mutex<[UInt]>([])
        feed.onAppend { addresses.withLock { $0.append(currentStackAddress()) } }
        let event = EventRecord(
            workspaceKey: "acme", eventID: "e", type: "exposure", timestamp: 1, receivedAt: 1, correctedTimestamp: 1,
            installID: "i", json: Array("{}".utf8))
        let batch = EventBatch(workspaceKey: "acme", accepted: [event], rejected: [])
        for _ in 0..<1_000 { feed.append([(batch, EventBatchResult(accepted: 1, duplicateIndexes: []))]) }
        let seen = addresses.withLock { $0 }
        #expect(seen.count == 1_000)
        #expect(feed.newestID == 1_000)
        // A closure stored as a `Mutex`'s value was wrapped in two more thunks at every append: 2,000 frames
        // between the writer and the listener by the last one.
        let first = seen.first ?? 0
        let deepest = seen.min() ?? 0
        #expect(first - deepest < 256, "the listener ran \(first - deepest) bytes deeper in the stack")
    }
}
