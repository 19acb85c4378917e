import Foundation
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockSQLite
import Testing

@testable import GronaMock

/// The kill history behind `event_after_kill`: told of every workspace change by the registry itself, it dates
/// each kill and revival exactly, at the mock's clock when the change was applied and in the revision it
/// served, whatever made the change (issue 29: no route middleware, no lenient dating).
@Suite("SDK contract checks: the kill history")
struct ViolationsKillLogTests {
    /// A registry on its own fixture with the kill log listening, its clock frozen at `start`.
    final class Subject {
        let fixture: MockFixture
        let clock = ServerClock()
        let kills = ViolationsKillLog()
        let registry: WorkspaceRegistry

        init(start: Int64 = 1_764_478_800_000) throws {
            fixture = try MockFixture.standard()
            let storage = try SQLiteStorage(path: fixture.database.path)
            let (keys, _) = try KeyStore.load(from: fixture.keys.path)
            registry = WorkspaceRegistry(
                directory: fixture.workspaces.path, keys: keys, revisions: storage, clock: clock, logger: .silent)
            registry.onChange { [kills] in kills.record($0) }
            clock.freeze(atMilliseconds: start)
            registry.loadDirectory()
        }

        var revision: Int64 { registry.entry(for: "shop")?.configuration.revision ?? -1 }

        func at(_ milliseconds: Int64) { clock.freeze(atMilliseconds: milliseconds) }

        func history(_ key: String = "shop") -> [KillInterval] { kills.intervals(for: key)["home-hero"] ?? [] }

        /// The fixture's document with home-hero's status set.
        func document(_ key: String = "shop", homeHero status: String) throws -> JSONValue {
            let text = MockFixture.workspace(key).replacingOccurrences(
                of: #""id": "home-hero", "status": "live""#, with: #""id": "home-hero", "status": "\#(status)""#)
            return try JSONParser().parse(text)
        }
    }

    @Test("a kill request and a revival are dated at the clock of their change, in the revision each served")
    func killAndRevive() throws {
        let subject = try Subject()
        #expect(subject.history().isEmpty)
        subject.at(1_764_478_801_234)
        try subject.registry.setStatus(.killed, campaign: "home-hero", in: "shop")
        let killed = subject.revision
        subject.at(1_764_478_805_000)
        try subject.registry.setStatus(.live, campaign: "home-hero", in: "shop")
        #expect(
            subject.history() == [
                KillInterval(
                    killedAt: 1_764_478_801_234, killedRevision: killed, revivedAt: 1_764_478_805_000,
                    revivedRevision: subject.revision)
            ])
    }

    @Test("a file edit that kills is dated when the edit is loaded, not at the revision's issuedAt second")
    func fileEdit() throws {
        let subject = try Subject()
        subject.at(1_764_478_802_500)
        let edited = MockFixture.workspace("shop").replacingOccurrences(
            of: #""id": "home-hero", "status": "live""#, with: #""id": "home-hero", "status": "killed""#)
        try subject.fixture.writeWorkspace("shop", edited)
        // The stamp of a file rewritten within the same second may not change: force the reload.
        subject.registry.loadDirectory()
        #expect(subject.history() == [KillInterval(killedAt: 1_764_478_802_500, killedRevision: subject.revision)])
    }

    @Test("a PUT that kills, a rotation after it and a reset that revives are each dated by their own change")
    func putRotateReset() throws {
        let subject = try Subject()
        subject.at(1_764_478_803_001)
        try subject.registry.put("shop", document: try subject.document(homeHero: "killed"))
        let killedRevision = subject.revision
        // A rotation serves a new revision with the campaign still killed: the kill keeps its date.
        subject.at(1_764_478_804_000)
        try subject.registry.rotate(.config, in: "shop")
        #expect(subject.revision > killedRevision)
        #expect(subject.history() == [KillInterval(killedAt: 1_764_478_803_001, killedRevision: killedRevision)])
        // The reset serves the file again, where home-hero is live: a revival at the reset.
        subject.at(1_764_478_806_000)
        try subject.registry.reset("shop")
        #expect(
            subject.history() == [
                KillInterval(
                    killedAt: 1_764_478_803_001, killedRevision: killedRevision, revivedAt: 1_764_478_806_000,
                    revivedRevision: subject.revision)
            ])
    }

    @Test("a clone's history starts at the clone and ends with its reset: a new clone under the key starts afresh")
    func cloneReset() throws {
        let subject = try Subject()
        subject.at(1_764_478_801_000)
        try subject.registry.setStatus(.killed, campaign: "home-hero", in: "shop")
        // A clone of a workspace with a killed campaign: killed since the clone was made, in its revision.
        subject.at(1_764_478_802_000)
        let (clone, _) = try subject.registry.clone("shop", as: "run-1", secretKey: nil)
        #expect(
            subject.history("run-1") == [
                KillInterval(killedAt: 1_764_478_802_000, killedRevision: clone.configuration.revision)
            ])
        subject.at(1_764_478_803_000)
        try subject.registry.setStatus(.live, campaign: "home-hero", in: "run-1")
        try subject.registry.reset("run-1")
        #expect(subject.history("run-1").isEmpty)
        // The key comes back as a clone of the file-served workspace... with its own, fresh history.
        try subject.registry.setStatus(.live, campaign: "home-hero", in: "shop")
        subject.at(1_764_478_809_000)
        _ = try subject.registry.clone("shop", as: "run-1", secretKey: nil)
        #expect(subject.history("run-1").isEmpty)
    }

    @Test("a change another instance made is dated when this one applies it")
    func sharedChange() throws {
        let subject = try Subject()
        subject.at(1_764_478_807_777)
        subject.registry.applyShared(
            .serve(workspace: "shop", document: try subject.document(homeHero: "killed"), origin: .runtime, expiry: nil)
        )
        #expect(subject.history() == [KillInterval(killedAt: 1_764_478_807_777, killedRevision: subject.revision)])
    }

    @Test("a campaign killed in its file from the start is killed since the file was loaded")
    func killedInTheFile() throws {
        let fixture = try MockFixture.standard()
        try fixture.writeWorkspace(
            "shop",
            MockFixture.workspace("shop").replacingOccurrences(
                of: #""id": "home-hero", "status": "live""#, with: #""id": "home-hero", "status": "killed""#))
        let storage = try SQLiteStorage(path: fixture.database.path)
        let (keys, _) = try KeyStore.load(from: fixture.keys.path)
        let clock = ServerClock()
        clock.freeze(atMilliseconds: 1_764_478_800_500)
        let registry = WorkspaceRegistry(
            directory: fixture.workspaces.path, keys: keys, revisions: storage, clock: clock, logger: .silent)
        let kills = ViolationsKillLog()
        registry.onChange { kills.record($0) }
        registry.loadDirectory()
        let revision = try #require(registry.entry(for: "shop")?.configuration.revision)
        #expect(
            kills.intervals(for: "shop") == [
                "home-hero": [KillInterval(killedAt: 1_764_478_800_500, killedRevision: revision)]
            ])
    }
}
