import Foundation

extension GronaMockClient {
    /// A workspace as `/_mock/workspaces` summarises it.
    public struct Workspace: Sendable, Hashable, Decodable {
        public let workspaceKey: String
        public let revision: Int64
        /// `file`, `runtime` or `clone`.
        public let origin: String
        /// Present only in the answer to a clone, the one time the server shows it.
        public let secretKey: String?
    }

    /// The mock's clock (`GET /_mock/clock`).
    public struct Clock: Sendable, Hashable, Decodable {
        /// The mock's time, Unix epoch milliseconds.
        public let now: Int64
        public let offsetMs: Int64
        public let frozen: Bool
        public var date: Date { Date(timeIntervalSince1970: Double(now) / 1000) }
    }

    /// A fault rule to add (docs/faults.md); nil fields take the server's defaults.
    public struct FaultRule: Sendable, Hashable, Codable {
        public var endpoint: String
        public var kind: String
        public var workspace: String?
        public var status: Int?
        public var retryAfterSeconds: Int?
        public var delayMs: Int?
        public var count: Int?

        public init(
            endpoint: String, kind: String, workspace: String? = nil, status: Int? = nil,
            retryAfterSeconds: Int? = nil, delayMs: Int? = nil, count: Int? = nil
        ) {
            self.endpoint = endpoint
            self.kind = kind
            self.workspace = workspace
            self.status = status
            self.retryAfterSeconds = retryAfterSeconds
            self.delayMs = delayMs
            self.count = count
        }
    }

    /// A fault rule as the server lists it, with its id and counts.
    public struct FaultListing: Sendable, Hashable, Decodable {
        public let id: String
        public let endpoint: String
        public let kind: String
        public let workspace: String?
        public let fired: Int
        public let remaining: Int?
    }

    /// A breach of the SDK's side of the contract (docs/violations.md).
    public struct Violation: Sendable, Hashable, Decodable {
        public let rule: String
        public let eventIDs: [String]
        public let message: String
    }

    /// What `waitForEvents` saw: whether `count` events came before the timeout, and how many did.
    public struct EventWait: Sendable, Hashable, Decodable {
        public let complete: Bool
        public let count: Int
    }

    // MARK: - Workspaces

    /// Every workspace served.
    public func workspaces() async throws -> [Workspace] {
        struct List: Decodable { let workspaces: [Workspace] }
        return try decode(List.self, try await send("GET", "/_mock/workspaces")).workspaces
    }

    /// Clones `base` as `key` (its own secret key, events and faults); `ttlSeconds` removes it by itself.
    public func clone(_ base: String, as key: String, ttlSeconds: Int? = nil) async throws -> Workspace {
        struct Body: Encodable, Sendable {
            let workspaceKey: String
            let ttlSeconds: Int?
        }
        let body = Body(workspaceKey: key, ttlSeconds: ttlSeconds)
        return try decode(Workspace.self, try await send("POST", "/_mock/workspaces/\(base)/clone", body: body))
    }

    /// Removes a clone or run-time workspace with its events.
    public func deleteWorkspace(_ key: String) async throws {
        _ = try await send("DELETE", "/_mock/workspaces/\(key)")
    }

    /// The kill switch (contract §8); returns the workspace with its new revision.
    @discardableResult
    public func kill(campaign: String, in key: String) async throws -> Workspace {
        try decode(Workspace.self, try await send("POST", "/_mock/workspaces/\(key)/campaigns/\(campaign)/kill"))
    }

    /// Revives a killed campaign; returns the workspace with its new revision.
    @discardableResult
    public func revive(campaign: String, in key: String) async throws -> Workspace {
        try decode(Workspace.self, try await send("POST", "/_mock/workspaces/\(key)/campaigns/\(campaign)/revive"))
    }

    /// Rotates the `config` or `grant` keys of workspace `key`.
    @discardableResult
    public func rotateKeys(_ role: String, in key: String) async throws -> Workspace {
        struct Body: Encodable, Sendable { let keys: String }
        return try decode(
            Workspace.self, try await send("POST", "/_mock/workspaces/\(key)/rotate", body: Body(keys: role)))
    }

    // MARK: - Faults

    /// Adds a fault rule; returns it as listed, with its id.
    @discardableResult
    public func addFault(_ rule: FaultRule) async throws -> FaultListing {
        try decode(FaultListing.self, try await send("POST", "/_mock/faults", body: rule))
    }

    /// Every fault rule, oldest first.
    public func faults() async throws -> [FaultListing] {
        struct List: Decodable { let faults: [FaultListing] }
        return try decode(List.self, try await send("GET", "/_mock/faults")).faults
    }

    public func deleteFault(_ id: String) async throws {
        _ = try await send("DELETE", "/_mock/faults/\(id)")
    }

    /// Removes every fault rule.
    public func clearFaults() async throws {
        _ = try await send("DELETE", "/_mock/faults")
    }

    // MARK: - Clock

    public func clock() async throws -> Clock {
        try decode(Clock.self, try await send("GET", "/_mock/clock"))
    }

    /// Moves the clock by `milliseconds` (negative moves it back).
    @discardableResult
    public func advanceClock(milliseconds: Int64) async throws -> Clock {
        try await changeClock(["advanceMs": milliseconds])
    }

    /// Stops the clock at `milliseconds` since the epoch, or at now.
    @discardableResult
    public func freezeClock(at milliseconds: Int64? = nil) async throws -> Clock {
        struct Body: Encodable, Sendable {
            let freeze: Bool
            let at: Int64?
        }
        return try decode(
            Clock.self, try await send("POST", "/_mock/clock", body: Body(freeze: true, at: milliseconds)))
    }

    /// Back to the real time, running.
    @discardableResult
    public func resetClock() async throws -> Clock {
        struct Body: Encodable, Sendable { let reset: Bool }
        return try decode(Clock.self, try await send("POST", "/_mock/clock", body: Body(reset: true)))
    }

    private func changeClock(_ body: [String: Int64]) async throws -> Clock {
        try decode(Clock.self, try await send("POST", "/_mock/clock", body: body))
    }

    // MARK: - Events and violations

    /// Waits until `count` events of workspace `key` (of `type`, when given) are stored, or `timeoutMs` passes.
    public func waitForEvents(
        count: Int, workspace key: String, type: String? = nil, timeoutMs: Int = 10_000
    ) async throws -> EventWait {
        var query = [
            URLQueryItem(name: "count", value: "\(count)"), URLQueryItem(name: "workspace", value: key),
            URLQueryItem(name: "timeoutMs", value: "\(timeoutMs)"),
        ]
        if let type { query.append(URLQueryItem(name: "type", value: type)) }
        return try decode(EventWait.self, try await send("GET", "/_mock/events/wait", query: query))
    }

    /// The contract violations in workspace `key`'s events.
    public func violations(workspace key: String) async throws -> [Violation] {
        struct List: Decodable { let violations: [Violation] }
        let data = try await send(
            "GET", "/_mock/events/violations", query: [URLQueryItem(name: "workspace", value: key)])
        return try decode(List.self, data).violations
    }
}
