import Foundation
import GronaMockClient

/// Against the grona-mock at GRONA_MOCK_URL: makes a clone, adds a fault on it, reads its violations, removes
/// it, and prints OK. Exits 1 naming the step that failed.
guard let client = GronaMockClient() else {
    FileHandle.standardError.write(Data("client-only: set GRONA_MOCK_URL\n".utf8))
    exit(1)
}
let key = "client-only-\(ProcessInfo.processInfo.processIdentifier)"
do {
    let clone = try await client.clone("acme-market", as: key, ttlSeconds: 300)
    let fault = try await client.addFault(.status(429, retryAfterSeconds: 1), on: .events, workspace: key, count: 1)
    let violations = try await client.violations(workspace: key)
    try await client.deleteWorkspace(key)
    print("clone \(clone.workspaceKey) revision \(clone.revision); fault \(fault.id); \(violations.count) violations")
    print("OK")
} catch {
    FileHandle.standardError.write(Data("client-only: \(error)\n".utf8))
    exit(1)
}
