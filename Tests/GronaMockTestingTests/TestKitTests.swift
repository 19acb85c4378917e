import Foundation
import GronaMockTesting
import Testing

/// The test kit as an SDK's tests use it: only its public API, as a test target that imports it sees it.
@Suite("GronaMockTesting")
struct TestKitTests {
    /// A valid events batch for `workspace`, as the SDK would post it.
    static func batch(workspace: String, events: [[String: Any]], installID: String = "install-1") throws -> Data {
        let envelope: [String: Any] = [
            "workspaceKey": workspace, "installID": installID, "sdk": ["platform": "ios", "version": "1.4.0"],
            "app": ["id": "com.acme.market", "version": "5.2.0"], "sentAt": 1_764_478_800_123, "events": events,
        ]
        return try JSONSerialization.data(withJSONObject: envelope)
    }

    static func exposure(_ id: String, customer: String? = nil) -> [String: Any] {
        var event: [String: Any] = [
            "eventID": id, "type": "exposure", "timestamp": 1_764_478_799_001, "sessionID": "s-1",
            "placement": "home_top", "screen": ["type": "home"], "visitID": "v-1", "campaignID": "home-hero",
            "variantID": "spring", "arm": "treatment",
        ]
        if let customer { event["customerID"] = customer }
        return event
    }

    /// Posts over a real socket, as the SDK does, with curl (present on the CI machines).
    static func post(_ url: URL, _ body: Data, headers: [String] = []) throws -> (status: Int, body: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("batch-\(UUID().uuidString).json")
        try body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["curl", "-s", "-o", "-", "-w", "\n%{http_code}", "-X", "POST", "-H", "Content-Type: application/json"]
            + headers.flatMap { ["-H", $0] } + ["--data-binary", "@\(file.path)", url.absoluteString]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let status = Int(text.split(separator: "\n").last ?? "") ?? 0
        return (status, String(text.split(separator: "\n").dropLast().joined(separator: "\n")))
    }

    @Test("a mock starts from any directory with the bundled workspaces, and stop is idempotent")
    func startAndStop() async throws {
        let mock = try await GronaMockTestServer.start()
        #expect(mock.baseURL.host == "127.0.0.1")
        #expect(mock.baseURL.port != nil && mock.baseURL.port != 8080)
        let configuration = try await mock.workspace("acme-market").verifiedConfiguration()
        #expect(configuration.isValid)
        #expect(configuration.failedSignatures.isEmpty)
        #expect(configuration.revision >= 1)
        async let first: Void = mock.stop()
        async let second: Void = mock.stop()
        _ = await (first, second)
        await mock.stop()
        await #expect(throws: GronaMockTestError.self) { try await mock.workspace("acme-market").revision() }
    }

    @Test("a key or campaign id that breaks its grammar is refused by the kit itself, with the engine's sentence")
    func identifiersChecked() async throws {
        try await withGronaMock { mock in
            for key in ["Bad_Key", "../x", "a/b", ""] {
                #expect {
                    _ = try mock.workspace(key)
                } throws: { error in
                    (error as? GronaMockTestError)?.code == "invalid_identifier"
                        && "\(error)".contains("is not a workspace key")
                }
            }
            await #expect(throws: GronaMockTestError.self) { try await mock.isolatedWorkspace(cloning: "A/B") }
            let workspace = try mock.workspace("acme-market")
            await #expect {
                try await workspace.killCampaign("../home-hero")
            } throws: { error in
                (error as? GronaMockTestError)?.code == "invalid_identifier"
            }
        }
    }

    @Test("events posted over HTTP are waited for (no polling) and come back typed")
    func eventsTyped() async throws {
        try await withGronaMock { mock in
            try await mock.withIsolatedWorkspace { workspace in
                async let waited = workspace.waitForEvents(
                    count: 2, matching: GronaMockEventFilter(type: "exposure"), timeout: .seconds(10))
                let posted = try Self.post(
                    workspace.eventsURL,
                    try Self.batch(workspace: workspace.key, events: [Self.exposure("e-1"), Self.exposure("e-2")]))
                #expect(posted.status == 200, "\(posted.body)")
                let events = try await waited
                #expect(events.map(\.eventID) == ["e-1", "e-2"])
                #expect(events.allSatisfy { $0.workspaceKey == workspace.key && $0.type == "exposure" })
                guard case .exposure(let context) = events[0].details else {
                    Issue.record("not an exposure: \(events[0].details)")
                    return
                }
                #expect(context.placement == "home_top")
                #expect(context.campaignID == "home-hero")
                #expect(context.screen.type == "home")
                #expect(try await workspace.events().count == 2)
                // Codable both ways: what a test saves decodes to the same event.
                let saved = try JSONEncoder().encode(events[0])
                let decoded = try JSONDecoder().decode(GronaMockEvent.self, from: saved)
                #expect(decoded.details == events[0].details)
                #expect(decoded.eventID == "e-1")
            }
        }
    }

    @Test("a wait that is not satisfied in time throws, saying how many arrived")
    func waitTimesOut() async throws {
        try await withGronaMock { mock in
            let workspace = try await mock.isolatedWorkspace()
            let error = await #expect(throws: GronaMockTestError.self) {
                try await workspace.waitForEvents(count: 1, timeout: .milliseconds(50))
            }
            #expect(error?.description.contains("0 arrived") == true)
        }
    }

    @Test("a 429 fault on one isolated workspace answers its requests only, with Retry-After")
    func faultsAreIsolated() async throws {
        try await withGronaMock { mock in
            let faulted = try await mock.isolatedWorkspace()
            let other = try await mock.isolatedWorkspace()
            let rule = try await faulted.inject(.status(429, retryAfterSeconds: 2), on: .events, count: 1)
            #expect(rule.kind == "status")
            let refused = try Self.post(
                faulted.eventsURL, try Self.batch(workspace: faulted.key, events: [Self.exposure("r-1")]))
            #expect(refused.status == 429)
            let accepted = try Self.post(
                other.eventsURL, try Self.batch(workspace: other.key, events: [Self.exposure("o-1")]))
            #expect(accepted.status == 200)
            let retried = try Self.post(
                faulted.eventsURL, try Self.batch(workspace: faulted.key, events: [Self.exposure("r-1")]))
            #expect(retried.status == 200)
            #expect(try await faulted.events().map(\.eventID) == ["r-1"])
            #expect(try await other.events().map(\.eventID) == ["o-1"])
            #expect(try await faulted.faultRules().first?.fired == 1)
            #expect(try await other.faultRules().isEmpty)
        }
    }

    @Test("killing a campaign serves a new revision that still verifies")
    func killCampaign() async throws {
        try await withGronaMock { mock in
            let workspace = try await mock.isolatedWorkspace()
            let before = try await workspace.verifiedConfiguration()
            let revision = try await workspace.killCampaign("home-hero")
            #expect(revision > before.revision)
            let after = try await workspace.verifiedConfiguration()
            #expect(after.revision == revision)
            #expect(after.isValid)
            #expect(after.etag != before.etag)
        }
    }

    @Test("a configuration key rotation serves a new revision that still verifies with the JWKS")
    func rotation() async throws {
        try await withGronaMock { mock in
            let workspace = try await mock.isolatedWorkspace()
            let before = try await workspace.verifiedConfiguration()
            let revision = try await workspace.rotateKeys(.config)
            #expect(revision > before.revision)
            let after = try await workspace.verifiedConfiguration()
            #expect(after.isValid)
        }
    }

    @Test("grants come back verified against the JWKS, and a bad fault is refused with its code")
    func grantsAndRefusals() async throws {
        try await withGronaMock { mock in
            let workspace = try await mock.isolatedWorkspace()
            // Some customers are assigned an offer variant, some the control or the holdout: among the first
            // twenty, some get grants, and every grant verifies.
            var granted: [GronaMockGrant] = []
            for index in 0..<20 { granted += try await workspace.grants(for: "cust_\(index)") }
            #expect(!granted.isEmpty)
            for grant in granted {
                #expect(grant.customerID.hasPrefix("cust_"))
                #expect(["checkout-10-off", "basket-5-off", "membership-free-delivery"].contains(grant.campaignID))
                #expect(grant.expiresAt > grant.notBefore)
            }
            let error = await #expect(throws: GronaMockTestError.self) {
                try await workspace.inject(.expiredGrant, on: .config)
            }
            #expect(error?.code == "invalid_fault")
        }
    }

    @Test("resetting one served workspace clears its events and faults, and leaves another workspace's alone")
    func resetOneWorkspace() async throws {
        try await withGronaMock { mock in
            let shared = try mock.workspace("acme-market")
            let other = try await mock.isolatedWorkspace()
            _ = try Self.post(shared.eventsURL, try Self.batch(workspace: shared.key, events: [Self.exposure("s-1")]))
            _ = try Self.post(other.eventsURL, try Self.batch(workspace: other.key, events: [Self.exposure("o-1")]))
            try await shared.inject(.drop, on: .config)
            try await other.inject(.drop, on: .config)
            try await shared.reset()
            #expect(try await shared.events().isEmpty)
            #expect(try await shared.faultRules().isEmpty)
            #expect(try await other.events().map(\.eventID) == ["o-1"])
            #expect(try await other.faultRules().count == 1)
        }
    }

    @Test("the kit's own checks neither fire nor use up the faults meant for the SDK")
    func checksBypassFaults() async throws {
        try await withGronaMock { mock in
            try await mock.withIsolatedWorkspace { workspace in
                try await workspace.inject(.badSignature, on: .config, count: 1)
                #expect(try await workspace.verifiedConfiguration().isValid)
                #expect(try await workspace.faultRules().first?.remaining == 1)
                // The SDK's fetch, over a socket, meets the fault.
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = ["curl", "-s", "-o", "/dev/null", workspace.configurationURL.absoluteString]
                try process.run()
                process.waitUntilExit()
                #expect(try await workspace.faultRules().first?.fired == 1)
            }
        }
    }

    @Test("resetting an isolated workspace brings it back as it was made, under the same keys, and remove still works")
    func resetIsolated() async throws {
        try await withGronaMock { mock in
            try await mock.withIsolatedWorkspace { workspace in
                let start = try await workspace.revision()
                try await workspace.killCampaign("home-hero")
                _ = try Self.post(
                    workspace.eventsURL, try Self.batch(workspace: workspace.key, events: [Self.exposure("z-1")]))
                try await workspace.reset()
                #expect(try await workspace.events().isEmpty)
                #expect(try await workspace.verifiedConfiguration().isValid)
                let grants = try await workspace.grants(for: "cust_1")
                #expect(grants.allSatisfy { $0.customerID == "cust_1" })
                #expect(try await workspace.revision() >= start)
            }
        }
    }

    @Test("an isolated workspace with a time to live is listed with it")
    func timeToLive() async throws {
        try await withGronaMock { mock in
            // Measured against the creation, not against when the expiry is read: with the machine's two
            // cooperative threads busy elsewhere, reading it once took 66 s.
            let before = Date()
            let workspace = try await mock.isolatedWorkspace(timeToLive: .seconds(600))
            let after = Date()
            let expiry = try #require(try await workspace.expiry())
            #expect(expiry >= before.addingTimeInterval(599) && expiry <= after.addingTimeInterval(601), "\(expiry)")
            #expect(try await mock.isolatedWorkspace().expiry() == nil)
        }
    }

    @Test("an isolated workspace is removed with its events")
    func removal() async throws {
        try await withGronaMock { mock in
            let workspace = try await mock.isolatedWorkspace()
            _ = try Self.post(
                workspace.eventsURL, try Self.batch(workspace: workspace.key, events: [Self.exposure("x")]))
            try await workspace.remove()
            let error = await #expect(throws: GronaMockTestError.self) { try await workspace.revision() }
            #expect(error?.status == 404)
        }
    }
}
