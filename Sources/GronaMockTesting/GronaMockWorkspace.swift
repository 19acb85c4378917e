import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON

/// One workspace of a running mock, and what a test does with it: read and wait for the events the SDK sent,
/// inject faults, change campaigns, check the SDK's side of the contract.
///
/// An isolated workspace (`GronaMockTestServer.isolatedWorkspace`) is a clone with its own key and secret
/// key; its events and faults are its own, and `remove()` takes it, its events and its faults away.
public struct GronaMockWorkspace: Sendable {
    /// The workspace key the SDK is configured with.
    public let key: String
    /// The secret key an order backend sends to the grants endpoint; nil for a workspace served from a file
    /// (its secret key is in the file).
    public let secretKey: String?
    /// Whether this is a clone made for one test.
    public let isClone: Bool
    let server: GronaMockTestServer
    /// For a clone: the workspace it was cloned from, and its time to live in seconds.
    var origin: (base: String, ttlSeconds: Int64?)? = nil

    /// The signed configuration's URL (contract §4).
    public var configurationURL: URL { server.baseURL.appendingPathComponent("v1/mobile/workspaces/\(key)/config") }
    /// The JWKS with every config and grant key (contract §6).
    public var jwksURL: URL { server.baseURL.appendingPathComponent("v1/mobile/workspaces/\(key)/jwks.json") }
    /// Where the SDK posts events (contract §7).
    public var eventsURL: URL { server.baseURL.appendingPathComponent("v1/mobile/events") }
    /// Where an order backend asks for grants (contract §6).
    public var grantsURL: URL { server.baseURL.appendingPathComponent("v1/mobile/grants") }

    // MARK: - Events

    /// The events stored for this workspace that match `filter`, oldest first (every page).
    public func events(_ filter: GronaMockEventFilter = GronaMockEventFilter()) async throws -> [GronaMockEvent] {
        var events: [GronaMockEvent] = []
        var cursor: String?
        repeat {
            var query = filter.queryItems(workspace: key) + [("limit", "1000")]
            if let cursor { query.append(("cursor", cursor)) }
            let page = try await server.call("GET", "/_mock/events?" + Self.encode(query))
            events += try GronaMockEvent.decodeList(page["events"])
            cursor = page["nextCursor"]?.stringValue
        } while cursor != nil
        return events
    }

    /// Waits until at least `count` events match `filter`, and returns the first `count` (oldest first).
    /// The server answers as soon as they are stored (a long-poll, no polling); when `timeout` passes first,
    /// throws `GronaMockTestError` saying how many arrived.
    @discardableResult
    public func waitForEvents(
        count: Int, matching filter: GronaMockEventFilter = GronaMockEventFilter(), timeout: Duration = .seconds(10)
    ) async throws -> [GronaMockEvent] {
        let query =
            filter.queryItems(workspace: key) + [
                ("count", String(max(1, count))), ("timeoutMs", String(timeout.milliseconds)),
            ]
        let answer = try await server.call("GET", "/_mock/events/wait?" + Self.encode(query))
        let events = try GronaMockEvent.decodeList(answer["events"])
        guard answer["complete"]?.boolValue == true else {
            throw GronaMockTestError(
                "waited \(timeout) for \(count) event(s) of \(key) matching \(filter), "
                    + "but \(answer["count"]?.int64Value ?? 0) arrived")
        }
        return events
    }

    /// Events this workspace refused, each with the field and the reason (contract §7).
    public func rejectedEvents() async throws -> [GronaMockRejectedEvent] {
        let page = try await server.call("GET", "/_mock/events/rejected?workspace=\(key)&limit=1000")
        return (page["events"]?.arrayValue ?? []).map(GronaMockRejectedEvent.init)
    }

    /// Breaches of the SDK's side of the contract in this workspace's stored events.
    public func violations() async throws -> [GronaMockViolation] {
        let answer = try await server.call("GET", "/_mock/events/violations?workspace=\(key)")
        return (answer["violations"]?.arrayValue ?? []).map(GronaMockViolation.init)
    }

    /// Deletes this workspace's stored events.
    public func deleteEvents() async throws {
        _ = try await server.call("DELETE", "/_mock/events?workspace=\(key)")
    }

    // MARK: - Faults

    /// Makes `endpoint` fail as `fault` says for this workspace's requests, for the next `count` of them.
    @discardableResult
    public func inject(
        _ fault: GronaMockFault, on endpoint: GronaMockEndpoint, count: Int = 1
    ) async throws -> GronaMockFaultRule {
        var rule = fault.json
        rule.set("endpoint", .string(endpoint.rawValue))
        rule.set("workspace", .string(key))
        rule.set("count", .number(JSONNumber(count)))
        return GronaMockFaultRule(try await server.call("POST", "/_mock/faults", json: rule, expecting: [201]))
    }

    /// The fault rules of this workspace, with their counts.
    public func faultRules() async throws -> [GronaMockFaultRule] {
        let answer = try await server.call("GET", "/_mock/faults")
        return (answer["faults"]?.arrayValue ?? []).map(GronaMockFaultRule.init).filter { $0.workspace == key }
    }

    /// Removes this workspace's fault rules (rules of other workspaces, and global ones, stay).
    public func removeFaults() async throws {
        for rule in try await faultRules() {
            _ = try await server.call("DELETE", "/_mock/faults/\(rule.id)")
        }
    }

    // MARK: - Run-time changes

    /// Kills a campaign at run time (contract §8); returns the new configuration revision.
    @discardableResult
    public func killCampaign(_ id: String) async throws -> Int64 {
        try GronaMockTestError.checked(id, .campaignID, given: "campaign")
        return try await change("POST", "/_mock/workspaces/\(key)/campaigns/\(id)/kill")
    }

    /// Revives a killed campaign; returns the new configuration revision.
    @discardableResult
    public func reviveCampaign(_ id: String) async throws -> Int64 {
        try GronaMockTestError.checked(id, .campaignID, given: "campaign")
        return try await change("POST", "/_mock/workspaces/\(key)/campaigns/\(id)/revive")
    }

    /// Which signing keys a rotation replaces.
    public enum KeyRole: String, Sendable {
        /// The configuration's keys: the new key signs beside the old one (contract §2).
        case config
        /// The grants' keys.
        case grant
    }

    /// Rotates this workspace's `role` keys to a freshly made one; returns the new configuration revision.
    @discardableResult
    public func rotateKeys(_ role: KeyRole) async throws -> Int64 {
        try await server.call("POST", "/_mock/workspaces/\(key)/rotate", json: ["keys": .string(role.rawValue)])[
            "revision"]?.int64Value ?? 0
    }

    /// Replaces the workspace with `document` (a workspace file's JSON); returns the new revision.
    @discardableResult
    public func replace(with document: Data) async throws -> Int64 {
        let response = try await server.raw(
            "PUT", "/_mock/workspaces/\(key)", body: Array(document))
        guard response.status.code == 200 else {
            throw GronaMockTestError(response: response, request: "PUT /_mock/workspaces/\(key)")
        }
        return try JSONParser().parse(response.body)["revision"]?.int64Value ?? 0
    }

    /// The configuration revision served now.
    public func revision() async throws -> Int64 {
        try await server.call("GET", "/_mock/workspaces/\(key)")["revision"]?.int64Value ?? 0
    }

    /// When the server will remove this clone by itself (by the real clock), for a clone made with a time to
    /// live; nil otherwise.
    public func expiry() async throws -> Date? {
        let listing = try await server.call("GET", "/_mock/workspaces/\(key)")
        return listing["expiresAt"]?.int64Value.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// Back to where this workspace started, touching no other: its events, rejected events, fault rules,
    /// grants and run-time changes (`POST /_mock/reset?workspace=`). A clone comes back as it was made, under
    /// the same key and secret key (the server removes a reset clone; this clones it again). The clock, one
    /// per server, is left alone.
    public func reset() async throws {
        _ = try await server.call("POST", "/_mock/reset?workspace=\(key)")
        guard let origin else { return }
        var clone: JSONObject = ["workspaceKey": .string(key)]
        if let secretKey { clone.set("secretKey", .string(secretKey)) }
        if let ttl = origin.ttlSeconds { clone.set("ttlSeconds", .number(JSONNumber(ttl))) }
        _ = try await server.call("POST", "/_mock/workspaces/\(origin.base)/clone", json: clone, expecting: [201, 200])
    }

    /// Removes a clone with its events and fault rules. A workspace served from a file is not removed.
    /// Removing one already removed (or expired) is not an error.
    public func remove() async throws {
        guard isClone else { return }
        try await removeFaults()
        try await deleteEvents()
        do {
            _ = try await server.call("DELETE", "/_mock/workspaces/\(key)")
        } catch let error as GronaMockTestError where error.code == "unknown_workspace" {
            return
        }
    }

    private func change(_ method: String, _ target: String) async throws -> Int64 {
        try await server.call(method, target)["revision"]?.int64Value ?? 0
    }

    static func encode(_ items: [(String, String)]) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        return items.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)"
        }.joined(separator: "&")
    }
}
