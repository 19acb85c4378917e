import AcmeSDK
import Foundation
import GronaMockTesting
import Testing

/// The Swift Testing way: a scoped mock per test, an isolated workspace per test.
@Suite("Events the SDK sends")
struct EventsTests {
    @Test("posted events are stored and waited for, gzipped as the SDK sends them, in the assigned arm")
    func postAndWait() async throws {
        try await withGronaMock { mock in
            try await mock.withIsolatedWorkspace { workspace in
                // The install and variant the contract's assignment gives, so the funnel breaks no rule.
                let (install, variant) = try await Events.treatedInstall(in: workspace)
                let client = GronaClient(
                    workspace: Workspace(key: workspace.key, baseURL: mock.baseURL), installID: install)
                try await client.send(events: [
                    Events.exposure("e-1", visit: "v-1", variant: variant),
                    Events.exposure("e-2", visit: "v-2", variant: variant),
                ])
                let events = try await workspace.waitForEvents(
                    count: 2, matching: GronaMockEventFilter(type: "exposure"))
                #expect(events.map(\.eventID) == ["e-1", "e-2"])
                #expect(events.allSatisfy { $0.installID == client.installID })
                #expect(try await workspace.violations().isEmpty)
            }
        }
    }

    @Test("the contract check catches an SDK that logs an exposure twice in one visit")
    func contractCheck() async throws {
        try await withGronaMock { mock in
            try await mock.withIsolatedWorkspace { workspace in
                let client = GronaClient(workspace: Workspace(key: workspace.key, baseURL: mock.baseURL))
                try await client.send(events: [
                    Events.exposure("d-1", visit: "v-9"), Events.exposure("d-2", visit: "v-9"),
                ])
                try await workspace.waitForEvents(count: 2)
                let rules = try await workspace.violations().map(\.rule)
                #expect(rules.contains("repeated_in_visit"), "\(rules)")
            }
        }
    }

    @Test("a 429 makes the SDK retry, and the retried batch is stored once")
    func retriesAfter429() async throws {
        try await withGronaMock { mock in
            try await mock.withIsolatedWorkspace { workspace in
                try await workspace.inject(.status(429), on: .events, count: 1)
                let (install, variant) = try await Events.treatedInstall(in: workspace)
                let client = GronaClient(
                    workspace: Workspace(key: workspace.key, baseURL: mock.baseURL), installID: install)
                let attempts = try await client.send(events: [Events.exposure("r-1", variant: variant)])
                #expect(attempts == 2)
                #expect(try await workspace.waitForEvents(count: 1).map(\.eventID) == ["r-1"])
                #expect(try await workspace.faultRules().first?.fired == 1)
                // The retry is the same batch: stored once, so no exposure repeats in its visit.
                #expect(try await workspace.violations().isEmpty)
            }
        }
    }

    @Test("two isolated workspaces in parallel never see each other's events, faults or resets")
    func isolation() async throws {
        try await withGronaMock { mock in
            async let first: [String] = Self.run(mock, prefix: "a", fault: true)
            async let second: [String] = Self.run(mock, prefix: "b", fault: false)
            let (a, b) = try await (first, second)
            #expect(a == ["a-0", "a-1", "a-2"])
            #expect(b == ["b-0", "b-1", "b-2"])
        }
    }

    /// One test's run on a workspace of its own: it sends (under a fault, for one of them), resets its
    /// workspace, sends again, and reports what its workspace holds.
    static func run(_ mock: GronaMockTestServer, prefix: String, fault: Bool) async throws -> [String] {
        try await mock.withIsolatedWorkspace { workspace in
            if fault { try await workspace.inject(.status(503), on: .events, count: 1) }
            let (install, variant) = try await Events.treatedInstall(in: workspace)
            let client = GronaClient(
                workspace: Workspace(key: workspace.key, baseURL: mock.baseURL), installID: install)
            // Only the faulted workspace's first batch meets the 503.
            let old = Events.exposure("\(prefix)-old", variant: variant)
            #expect(try await client.send(events: [old]) == (fault ? 2 : 1))
            try await workspace.reset()
            #expect(try await workspace.faultRules().isEmpty)
            for index in 0..<3 {
                try await client.send(events: [
                    Events.exposure("\(prefix)-\(index)", visit: "v-\(index)", variant: variant)
                ])
            }
            let stored = try await workspace.waitForEvents(count: 3).map(\.eventID)
            // Nothing of the other workspace's run, nor of this one's before the reset, breaks a rule here.
            #expect(try await workspace.violations().isEmpty)
            return stored
        }
    }
}
