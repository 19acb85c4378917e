import GronaMockHTTP
import GronaMockJSON
import GronaMockTestSupport
import Testing

@testable import GronaMock

/// How `ViolationsKillLog` dates kills and revivals it sees only between two observations: a kill no
/// earlier than it could have happened, a revival no later, so a correct SDK is never reported.
@Suite("SDK contract checks: the kill history")
struct ViolationsKillLogTests {
    /// The fixture workspace as revision `revision` issued at `issuedAt` (Unix seconds), home-hero killed or not.
    static func entry(killed: Bool, revision: Int64, issuedAt: Int64) throws -> WorkspaceRegistry.Entry {
        var workspace = try ViolationWorkspace.shop()
        if let index = workspace.campaigns.firstIndex(where: { $0.id == "home-hero" }) {
            workspace.campaigns[index].status = killed ? .killed : .live
        }
        let stored = StoredConfigRevision(revision: revision, contentHash: [], issuedAt: issuedAt, document: [])
        return WorkspaceRegistry.Entry(
            workspace: workspace, configuration: SignedConfiguration(workspaceKey: "shop", stored: stored),
            sourcePath: nil, problems: [], source: .null, origin: .runtime)
    }

    @Test("a campaign killed when first seen is killed since the end of its revision's issuedAt second")
    func firstSight() throws {
        let log = ViolationsKillLog()
        log.observe(try Self.entry(killed: true, revision: 2, issuedAt: 1_000), now: 5_000_000)
        #expect(log.intervals(for: "shop") == ["home-hero": [KillInterval(killedAt: 1_000_999, killedRevision: 2)]])
        #expect(log.intervals(for: "other") == [:])
    }

    @Test("a kill seen as it happens is dated now; a revival by the last time it was seen killed")
    func killAndRevive() throws {
        let log = ViolationsKillLog()
        log.observe(try Self.entry(killed: false, revision: 1, issuedAt: 100), now: 200_000)
        #expect(log.intervals(for: "shop") == [:])
        log.observe(try Self.entry(killed: true, revision: 3, issuedAt: 300), now: 300_400)
        log.observe(try Self.entry(killed: true, revision: 3, issuedAt: 300), now: 350_000)
        log.observe(try Self.entry(killed: false, revision: 5, issuedAt: 500), now: 600_000)
        log.observe(try Self.entry(killed: true, revision: 6, issuedAt: 700), now: 900_000)
        #expect(
            log.intervals(for: "shop") == [
                "home-hero": [
                    KillInterval(killedAt: 300_400, killedRevision: 3, revivedAt: 350_000, revivedRevision: 4),
                    KillInterval(killedAt: 700_999, killedRevision: 6),
                ]
            ])
    }
}
