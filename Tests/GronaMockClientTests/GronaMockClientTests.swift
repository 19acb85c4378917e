import Foundation
import GronaMockClient
import GronaMockTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The control client against a live mock over real sockets: a mock started in process by the test kit,
/// reached only through its base URL, as an iOS simulator's tests reach `grona-mock exec`.
@Suite("GronaMockClient")
struct GronaMockClientTests {
    @Test("clone, kill and revive, faults, the clock and violations, over HTTP")
    func controlAPI() async throws {
        try await withGronaMock { mock in
            let client = GronaMockClient(baseURL: mock.baseURL)
            let key = "client-\(UInt32.random(in: 0...UInt32.max))"
            let clone = try await client.clone("acme-market", as: key, ttlSeconds: 600)
            #expect(clone.workspaceKey == key)
            #expect(clone.origin == "clone")
            #expect(clone.secretKey != nil)
            #expect(try await client.workspaces().contains { $0.workspaceKey == key })

            let killed = try await client.kill(campaign: "home-hero", in: key)
            let revived = try await client.revive(campaign: "home-hero", in: key)
            #expect(revived.revision > killed.revision)

            let fault = try await client.addFault(
                .status(429, retryAfterSeconds: 1), on: .events, workspace: key, count: 1)
            #expect(fault.kind == "status" && fault.workspace == key && fault.remaining == 1)
            #expect(try await client.faults().map(\.id) == [fault.id])
            try await client.deleteFault(fault.id)
            #expect(try await client.faults().isEmpty)
            try await client.addFault(.badSignature, on: .config, workspace: key, count: 5)
            let delay = try await client.addFault(.delay(milliseconds: 1), on: .grants, workspace: key, count: 2)
            #expect(try await client.faults().map(\.kind) == ["bad_signature", "delay"])
            #expect(delay.remaining == 2)
            try await client.clearFaults()
            #expect(try await client.faults().isEmpty)

            let frozen = try await client.freezeClock(at: 1_900_000_000_000)
            #expect(frozen.frozen && frozen.now == 1_900_000_000_000)
            #expect(try await client.advanceClock(milliseconds: 60_000).now == 1_900_000_060_000)
            #expect(try await client.clock().now == 1_900_000_060_000)
            #expect(try await client.resetClock().frozen == false)

            let wait = try await client.waitForEvents(count: 1, workspace: key, timeoutMs: 0)
            #expect(!wait.complete)
            #expect(try await client.violations(workspace: key).isEmpty)

            try await client.deleteWorkspace(key)
            #expect(try await !client.workspaces().contains { $0.workspaceKey == key })
        }
    }

    @Test("rotating keys gives a new revision whose first signature is under the next key")
    func rotateKeys() async throws {
        try await withGronaMock { mock in
            let client = GronaMockClient(baseURL: mock.baseURL)
            let key = "client-rotate-\(UInt32.random(in: 0...UInt32.max))"
            let clone = try await client.clone("acme-market", as: key, ttlSeconds: 600)
            let before = try await Self.configurationKeyIDs(mock.baseURL, key)
            let rotated = try await client.rotateKeys("config", in: key)
            #expect(rotated.revision > clone.revision)
            // The next key becomes the current one: the first signature is under another kid.
            let after = try await Self.configurationKeyIDs(mock.baseURL, key)
            #expect(after.first != before.first, "still signed first by \(before.first ?? "-")")
            #expect(Set(after) == Set(before))
            let refused = await #expect(throws: GronaMockClient.Failure.self) {
                try await client.rotateKeys("no-such-role", in: key)
            }
            #expect(refused?.status == 400)
        }
    }

    @Test("events and violations are read over every page, typed as the kit types them")
    func eventsAndViolationsPaged() async throws {
        try await withGronaMock { mock in
            let client = GronaMockClient(baseURL: mock.baseURL)
            let key = "client-pages-\(UInt32.random(in: 0...UInt32.max))"
            _ = try await client.clone("acme-market", as: key, ttlSeconds: 600)
            // 1,100 visits with two exposures each: 2,200 events and 1,100 repeated_in_visit violations, more
            // than one page (1,000) of each.
            let visits = 1_100
            for first in stride(from: 0, to: visits, by: 50) {
                let events = (first..<min(first + 50, visits)).flatMap { visit in
                    [Self.exposure("e-\(visit)-a", visit: visit), Self.exposure("e-\(visit)-b", visit: visit)]
                }
                let status = try await Self.postEvents(mock.baseURL, key, events)
                #expect(status == 200)
            }
            let waited = try await client.waitForEvents(
                count: 2 * visits, workspace: key, matching: GronaMockClient.EventFilter(type: "exposure"))
            #expect(waited.complete)
            let events = try await client.events(workspace: key)
            #expect(events.count == 2 * visits)
            #expect(Set(events.map(\.eventID)).count == 2 * visits)
            #expect(events.map(\.sequence) == events.map(\.sequence).sorted())
            guard case .exposure(let context) = events[0].details else {
                Issue.record("not an exposure: \(events[0].details)")
                return
            }
            #expect(context.campaignID == "home-hero" && context.placement == "home_top")
            let one = try await client.events(workspace: key, matching: .init(visitID: "v-7"))
            #expect(one.map(\.eventID) == ["e-7-a", "e-7-b"])

            let violations = try await client.violations(workspace: key)
            #expect(violations.count == visits)
            #expect(violations.allSatisfy { $0.rule == "repeated_in_visit" && $0.eventIDs.count == 2 })
            #expect(Set(violations.flatMap(\.eventIDs)).count == 2 * visits)
        }
    }

    static func exposure(_ id: String, visit: Int) -> [String: Any] {
        [
            "eventID": id, "type": "exposure", "timestamp": 1_764_478_799_001, "sessionID": "s-1",
            "placement": "home_top", "screen": ["type": "home"], "visitID": "v-\(visit)", "campaignID": "home-hero",
            "variantID": "spring", "arm": "treatment",
        ]
    }

    /// Posts one batch as an SDK does (contract §7), over URLSession.
    static func postEvents(_ base: URL, _ key: String, _ events: [[String: Any]]) async throws -> Int {
        let envelope: [String: Any] = [
            "workspaceKey": key, "installID": "install-1", "sdk": ["platform": "ios", "version": "1.4.0"],
            "app": ["id": "com.acme.market", "version": "5.2.0"], "sentAt": 1_764_478_800_123, "events": events,
        ]
        var request = URLRequest(url: base.appendingPathComponent("v1/mobile/events"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: envelope)
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    /// The `kid` of each of the configuration's signatures (contract §4: a JWS in general JSON serialisation).
    static func configurationKeyIDs(_ base: URL, _ key: String) async throws -> [String] {
        let url = base.appendingPathComponent("v1/mobile/workspaces/\(key)/config")
        let (data, _) = try await URLSession.shared.data(from: url)
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let signatures = try #require(document["signatures"] as? [[String: Any]])
        var kids: [String] = []
        for signature in signatures {
            let protected = try #require(signature["protected"] as? String)
            var base64 = protected.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            let header = try #require(Data(base64Encoded: base64))
            let fields = try #require(try JSONSerialization.jsonObject(with: header) as? [String: Any])
            kids.append(try #require(fields["kid"] as? String))
        }
        return kids
    }

    @Test("a refusal carries the server's status and error.code")
    func refusals() async throws {
        try await withGronaMock { mock in
            let client = GronaMockClient(baseURL: mock.baseURL)
            let error = await #expect(throws: GronaMockClient.Failure.self) {
                try await client.kill(campaign: "home-hero", in: "no-such-workspace")
            }
            #expect(error?.status == 404)
            #expect(error?.code == "unknown_workspace")
            let fault = await #expect(throws: GronaMockClient.Failure.self) {
                try await client.addFault(.truncate(afterBytes: -1), on: .config)
            }
            #expect(fault?.status == 400)
            #expect(fault?.code != nil)
        }
    }

    @Test("GronaMockClient depends on no target of this package and imports Foundation only")
    func dependencyClosure() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        // The declaration takes no dependencies, so nothing of this package (and no C library) is in its closure.
        #expect(manifest.contains(#".target(name: "GronaMockClient"),"#))
        let sources = root.appendingPathComponent("Sources/GronaMockClient")
        let files = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty)
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            let imports = text.split(separator: "\n").filter { $0.hasPrefix("import ") }
                .map { String($0.dropFirst("import ".count)) }
            #expect(Set(imports).isSubset(of: ["Foundation", "FoundationNetworking"]), "\(file): \(imports)")
        }
    }
}
