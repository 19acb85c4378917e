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

    /// Adds a fault rule: `fault` on `endpoint`, for one workspace or all (nil), for the next `count` requests;
    /// returns it as listed, with its id.
    @discardableResult
    public func addFault(
        _ fault: Fault, on endpoint: Endpoint, workspace: String? = nil, count: Int = 1
    ) async throws -> FaultRule {
        var body: [String: FaultField] = ["endpoint": .text(endpoint.rawValue), "kind": .text(fault.kind)]
        for (name, value) in fault.parameters { body[name] = .number(value) }
        if let workspace { body["workspace"] = .text(workspace) }
        body["count"] = .number(count)
        return try decode(FaultRule.self, try await send("POST", "/_mock/faults", body: body))
    }

    /// Every fault rule, oldest first.
    public func faults() async throws -> [FaultRule] {
        struct List: Decodable { let faults: [FaultRule] }
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

    /// Every stored event of workspace `key` that matches `filter`, oldest first (every page followed).
    public func events(
        workspace key: String, matching filter: EventFilter = EventFilter()
    ) async throws -> [Event] {
        try await everyPage("/_mock/events", urlQueryItems(filter, workspace: key)) { data in
            // Each event is decoded from its own JSON, which `Event.json` keeps.
            guard let page = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                let list = page["events"] as? [Any]
            else { throw Failure(status: 200, code: nil, message: "GET /_mock/events answered no events list") }
            let events = try list.map { try Event.decode(try JSONSerialization.data(withJSONObject: $0)) }
            return (events, page["nextCursor"] as? String)
        }
    }

    /// Waits until `count` events of workspace `key` matching `filter` are stored, or `timeoutMs` passes (the
    /// server cuts waits at two minutes).
    public func waitForEvents(
        count: Int, workspace key: String, matching filter: EventFilter = EventFilter(), timeoutMs: Int = 10_000
    ) async throws -> EventWait {
        let query =
            urlQueryItems(filter, workspace: key) + [
                URLQueryItem(name: "count", value: "\(count)"), URLQueryItem(name: "timeoutMs", value: "\(timeoutMs)"),
            ]
        return try decode(EventWait.self, try await send("GET", "/_mock/events/wait", query: query))
    }

    /// The contract violations in workspace `key`'s events, every page followed.
    public func violations(workspace key: String) async throws -> [Violation] {
        struct Page: Decodable {
            let violations: [Violation]
            let nextCursor: String?
        }
        return try await everyPage("/_mock/events/violations", [URLQueryItem(name: "workspace", value: key)]) {
            let page = try decode(Page.self, $0)
            return (page.violations, page.nextCursor)
        }
    }

    /// Every page of a listing at `path`, 1,000 items a page, following `nextCursor` to the last: `read` takes
    /// a page's body apart into its items and its `nextCursor`.
    private func everyPage<Item>(
        _ path: String, _ query: [URLQueryItem], _ read: (Data) throws -> (items: [Item], next: String?)
    ) async throws -> [Item] {
        var items: [Item] = []
        var cursor: String?
        repeat {
            var pageQuery = query + [URLQueryItem(name: "limit", value: "1000")]
            if let cursor { pageQuery.append(URLQueryItem(name: "cursor", value: cursor)) }
            let page = try read(try await send("GET", path, query: pageQuery))
            items += page.items
            cursor = page.next
        } while cursor != nil
        return items
    }
}

/// A fault rule's field: the body of `POST /_mock/faults` mixes text and numbers.
private enum FaultField: Encodable, Sendable {
    case text(String)
    case number(Int)

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .number(let number): try container.encode(number)
        }
    }
}
