import Foundation
import GronaMockClient
import GronaMockTesting
import Testing

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
                .init(endpoint: "events", kind: "status", workspace: key, status: 429, count: 1))
            #expect(try await client.faults().map(\.id) == [fault.id])
            try await client.deleteFault(fault.id)
            #expect(try await client.faults().isEmpty)
            try await client.addFault(.init(endpoint: "config", kind: "status", workspace: key, status: 503, count: 5))
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
                try await client.addFault(.init(endpoint: "events", kind: "no-such-kind"))
            }
            #expect(fault?.code == "invalid_fault")
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
