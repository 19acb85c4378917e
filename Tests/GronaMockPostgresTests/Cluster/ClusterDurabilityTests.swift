import Foundation
import GronaMockTestSupport
import Testing

/// What a cluster keeps when part of it fails under load: every acknowledged event, exactly once
/// (issue 15: "200 means committed in PostgreSQL").
@Suite(
    "Cluster: failures under load", .serialized,
    .enabled(if: TestPostgres.isAvailable, TestPostgres.unavailableReason))
struct ClusterDurabilityTests {
    @Test("SIGKILL of one instance under load: every acknowledged event is stored exactly once")
    func instanceKilledUnderLoad() throws {
        let store = try TestPostgres.freshURL()
        let a = try ClusterInstance(store: store)
        let b = try ClusterInstance(store: store)
        let senders = EventSenders(ports: [a.port, b.port])
        #expect(eventually(seconds: 60) { senders.acknowledgedCount >= 1_000 })
        a.killNow()
        // B keeps serving once A is gone.
        let afterKill = senders.acknowledgedCount
        #expect(eventually(seconds: 30) { senders.acknowledgedCount >= afterKill + 200 })
        #expect(senders.stop())

        let acknowledged = senders.acknowledged
        let stored = try b.storedEventIDs(workspace: "acme-market")
        #expect(Set(stored).count == stored.count, "an event is stored twice")
        let missing = acknowledged.subtracting(stored)
        #expect(missing.isEmpty, "\(missing.count) of \(acknowledged.count) acknowledged events were lost")
    }

    @Test("PostgreSQL stopped and restarted under load: 503 storage_unavailable while down, nothing acknowledged lost")
    func databaseRestartedUnderLoad() throws {
        let cluster = try TestCluster()
        defer { cluster.stop() }
        let a = try ClusterInstance(store: cluster.url)
        let b = try ClusterInstance(store: cluster.url)
        let senders = EventSenders(ports: [a.port, b.port])
        #expect(eventually(seconds: 60) { senders.acknowledgedCount >= 500 })

        try cluster.pause()
        #expect(eventually(seconds: 30) { senders.unavailableCount >= 4 })
        let events = try b.post("/v1/mobile/events", ClusterEvents.batch(["while-down"]))
        #expect(events.status == 503)
        #expect(events.text.contains("storage_unavailable"))

        try cluster.resume()
        let afterResume = senders.acknowledgedCount
        #expect(eventually(seconds: 30) { senders.acknowledgedCount >= afterResume + 500 })
        #expect(senders.stop())

        let acknowledged = senders.acknowledged
        let stored = try a.storedEventIDs(workspace: "acme-market")
        #expect(Set(stored).count == stored.count, "an event is stored twice")
        let missing = acknowledged.subtracting(stored)
        #expect(missing.isEmpty, "\(missing.count) of \(acknowledged.count) acknowledged events were lost")
        #expect(!stored.contains("while-down"))
    }
}
