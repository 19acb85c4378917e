/// Scoped helpers for Swift Testing (and any `async` code): the mock or the workspace lives for the body and

/// is stopped or removed afterwards, whether the body returns or throws.
///
/// ```swift
/// @Test func sendsExposures() async throws {
///     try await withGronaMock { mock in
///         let workspace = try await mock.isolatedWorkspace()
///         // point the SDK at mock.baseURL and workspace.key ...
///         try await workspace.waitForEvents(count: 1, matching: .init(type: "exposure"))
///     }
/// }
/// ```
///
/// XCTest: start in `override func setUp() async throws` and `await mock.stop()` in `tearDown() async`.
public func withGronaMock<T: Sendable>(
    _ options: GronaMockTestServer.Options = GronaMockTestServer.Options(),
    _ body: (GronaMockTestServer) async throws -> T
) async throws -> T {
    let mock = try await GronaMockTestServer.start(options)
    do {
        let result = try await body(mock)
        await mock.stop()
        return result
    } catch {
        await mock.stop()
        throw error
    }
}

extension GronaMockTestServer {
    /// Runs `body` with a workspace of its own (a clone of `base`) and removes it afterwards.
    public func withIsolatedWorkspace<T: Sendable>(
        cloning base: String = "acme-market", timeToLive: Duration? = nil,
        _ body: (GronaMockWorkspace) async throws -> T
    ) async throws -> T {
        let workspace = try await isolatedWorkspace(cloning: base, timeToLive: timeToLive)
        do {
            let result = try await body(workspace)
            try await workspace.remove()
            return result
        } catch {
            try? await workspace.remove()
            throw error
        }
    }
}
