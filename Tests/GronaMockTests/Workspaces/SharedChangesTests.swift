import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockSQLite
import Testing

/// Run-time changes as instances tell each other (issue 15), checked without a database server: two registries
/// on one storage, each publishing to the other as `PostgresRuntime` would (its own tests run real instances).
@Suite("Run-time changes shared between registries")
struct SharedChangesTests {
    /// Hands every change one registry publishes to the other, as another instance would apply it.
    final class Relay: SharedRuntime {
        let faultRules: any FaultRuleStore = LocalFaultRules()
        let other = Mutex<WorkspaceRegistry?>(nil)
        let published = Mutex<[RuntimeChange]>([])

        func publish(_ change: RuntimeChange) throws(StorageError) {
            published.withLock { $0.append(change) }
            other.withLock { $0 }?.applyShared(change)
        }
        func publish(clock: ClockSetting) throws(StorageError) -> Int64 { 0 }
        func start(_ replica: RuntimeReplica) {}
        func stop() {}
    }

    /// Registries A and B on one SQLite file, A's changes applied to B.
    private static func pair(_ fixture: MockFixture) throws -> (WorkspaceRegistry, WorkspaceRegistry, Relay) {
        let storage = try SQLiteStorage(path: fixture.database.path)
        let (keys, _) = try KeyStore.load(from: fixture.keys.path)
        let relay = Relay()
        let a = WorkspaceRegistry(
            directory: fixture.workspaces.path, keys: keys, revisions: storage, clock: ServerClock(), logger: .silent,
            shared: relay)
        let b = WorkspaceRegistry(
            directory: fixture.workspaces.path, keys: keys, revisions: storage, clock: ServerClock(), logger: .silent)
        a.loadDirectory()
        b.loadDirectory()
        relay.other.withLock { $0 = b }
        return (a, b, relay)
    }

    @Test("a kill, a clone with its secret and time to live, its removal and a reset reach the other registry")
    func changesReachTheOther() throws {
        let fixture = try MockFixture.standard()
        let (a, b, relay) = try Self.pair(fixture)

        let killed = try a.setStatus(.killed, campaign: "home-hero", in: "shop")
        let seen = try #require(b.entry(for: "shop"))
        #expect(seen.configuration.revision == killed.configuration.revision)
        #expect(seen.origin == .runtime)
        #expect(seen.workspace.campaigns.first { $0.id == "home-hero" }?.status == .killed)

        let (_, secret) = try a.clone("shop", as: "run-1", secretKey: nil, ttlSeconds: 60)
        #expect(b.entry(forSecret: secret)?.workspace.key == "run-1")
        #expect(b.entry(for: "run-1")?.origin == .clone)
        let expiry = try #require(b.expiry(of: "run-1"))
        #expect(expiry.ttlSeconds == 60)
        #expect(b.expireClones(now: MonotonicClock.now() + 61_000_000_000) == ["run-1"])

        _ = try a.clone("shop", as: "run-2", secretKey: nil)
        try a.removeClone("run-2")
        #expect(b.entry(for: "run-2") == nil)

        a.reset()
        #expect(b.entry(for: "shop")?.origin == .file)
        #expect(relay.published.withLock { $0.map(\.kind) } == [.serve, .serve, .serve, .removeClone, .reset])
    }

    @Test(
        "a change reads back as it was written",
        arguments: [
            RuntimeChange.serve(
                workspace: "run-1", document: ["workspaceKey": "run-1"], origin: .clone,
                expiry: SharedExpiry(ttlSeconds: 30, expiresAt: 1_800_000_000_000)),
            .serve(workspace: "shop", document: ["a": [1, 2]], origin: .runtime, expiry: nil),
            .removeClone(workspace: "run-1"),
            .reset(workspace: "shop"),
            .reset(workspace: nil),
        ])
    func roundTrip(_ change: RuntimeChange) {
        #expect(
            RuntimeChange(kind: change.kind.rawValue, workspace: change.workspace, payload: change.payload) == change)
    }

    @Test(
        "a row that cannot be read is no change",
        arguments: [
            ("unknown", "shop", "{}"), ("serve", nil, #"{"document":{},"origin":"clone"}"#),
            ("serve", "shop", #"{"document":{},"origin":"elsewhere"}"#), ("serve", "shop", "not json"),
            ("remove_clone", nil, "{}"),
        ])
    func unreadable(_ kind: String, _ workspace: String?, _ payload: String) {
        #expect(RuntimeChange(kind: kind, workspace: workspace, payload: Array(payload.utf8)) == nil)
    }
}
