import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform

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
        let filter = try engineFilter(filter)
        var events: [GronaMockEvent] = []
        var page = EventPage()
        page.limit = EventPage.maxLimit
        repeat {
            let listing = try server.operate("list the events of \(key)") { try $0.events(filter, page: page) }
            events += try GronaMockEvent.decodeList(.array(listing.events))
            page.cursor = listing.nextCursor
        } while page.cursor != nil
        return events
    }

    /// The kit's filter as the engine reads one, checked by the engine's own parsing.
    private func engineFilter(_ filter: GronaMockEventFilter) throws -> EventFilter {
        do {
            return try EventFilter(parameters: filter.queryItems(workspace: key).map { (name: $0.0, value: $0.1) })
        } catch {
            throw GronaMockTestError(error.httpError, operation: "filter \(filter)")
        }
    }

    /// Waits until at least `count` events match `filter`, and returns the first `count` (oldest first).
    /// The server answers as soon as they are stored (a long-poll, no polling); when `timeout` passes first,
    /// throws `GronaMockTestError` saying how many arrived.
    @discardableResult
    public func waitForEvents(
        count: Int, matching filter: GronaMockEventFilter = GronaMockEventFilter(), timeout: Duration = .seconds(10)
    ) async throws -> [GronaMockEvent] {
        let engineFilter = try engineFilter(filter)
        let ticket = Mutex<EventWaitTicket?>(nil)
        // A test that is cancelled gives its wait up at once, as a client that goes does.
        let outcome: EventWaitOutcome = try await withTaskCancellationHandler {
            try await server.operate("wait for events of \(key)") { engine, done in
                ticket.withLock {
                    $0 = engine.waitForEvents(engineFilter, count: max(1, count), timeout: timeout) {
                        done(.success($0))
                    }
                }
            }
        } onCancel: {
            ticket.withLock { $0 }?()
        }
        let events = try GronaMockEvent.decodeList(.array(outcome.events))
        guard outcome.complete else {
            throw GronaMockTestError(
                "waited \(timeout) for \(count) event(s) of \(key) matching \(filter), but \(outcome.count) arrived")
        }
        return events
    }

    /// Events this workspace refused, each with the field and the reason (contract §7).
    public func rejectedEvents() async throws -> [GronaMockRejectedEvent] {
        var rejected: [GronaMockRejectedEvent] = []
        var page = EventPage()
        page.limit = EventPage.maxLimit
        repeat {
            let listing = try server.operate("list the rejected events of \(key)") {
                try $0.rejectedEvents(workspace: key, page: page)
            }
            rejected += listing.events.map(GronaMockRejectedEvent.init)
            page.cursor = listing.nextCursor
        } while page.cursor != nil
        return rejected
    }

    /// Breaches of the SDK's side of the contract in this workspace's stored events.
    public func violations() async throws -> [GronaMockViolation] {
        let report = try server.operate("check the events of \(key)") { try $0.violations(key) }
        return report.violations.map { GronaMockViolation($0.json) }
    }

    /// Deletes this workspace's stored events.
    public func deleteEvents() async throws {
        let _: Int = try await server.operate("delete the events of \(key)") { engine, done in
            try engine.deleteEvents(workspace: key) { done($0.mapError { $0 }) }
        }
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
        let listing = try server.operate("add a fault rule to \(key)") {
            try $0.addFault(try FaultRule.parse(.object(rule)))
        }
        return GronaMockFaultRule(.object(listing))
    }

    /// The fault rules of this workspace, with their counts.
    public func faultRules() async throws -> [GronaMockFaultRule] {
        let rules = try server.operate("list the fault rules") { try $0.faultRules() }
        return rules.map { GronaMockFaultRule(.object($0)) }.filter { $0.workspace == key }
    }

    /// Removes this workspace's fault rules (rules of other workspaces, and global ones, stay).
    public func removeFaults() async throws {
        for rule in try await faultRules() {
            try server.operate("remove fault rule \(rule.id)") { try $0.removeFault(id: rule.id) }
        }
    }

    // MARK: - Run-time changes

    /// Kills a campaign at run time (contract §8); returns the new configuration revision.
    @discardableResult
    public func killCampaign(_ id: String) async throws -> Int64 {
        try GronaMockTestError.checked(id, .campaignID, given: "campaign")
        return try server.operate("kill \(id) in \(key)") {
            try $0.setCampaignStatus(.killed, campaign: id, workspace: key).revision
        }
    }

    /// Revives a killed campaign; returns the new configuration revision.
    @discardableResult
    public func reviveCampaign(_ id: String) async throws -> Int64 {
        try GronaMockTestError.checked(id, .campaignID, given: "campaign")
        return try server.operate("revive \(id) in \(key)") {
            try $0.setCampaignStatus(.live, campaign: id, workspace: key).revision
        }
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
        try server.operate("rotate the \(role.rawValue) keys of \(key)") {
            try $0.rotateKeys(role == .config ? .config : .grant, workspace: key).revision
        }
    }

    /// Replaces the workspace with `document` (a workspace file's JSON); returns the new revision.
    @discardableResult
    public func replace(with document: Data) async throws -> Int64 {
        let parsed: JSONValue
        do {
            parsed = try JSONParser().parse(Array(document))
        } catch {
            throw GronaMockTestError("replace \(key): the document is not valid JSON: \(error)")
        }
        return try server.operate("replace \(key)") {
            try $0.putWorkspace(key, document: parsed, allowInvalid: false).revision
        }
    }

    /// The configuration revision served now.
    public func revision() async throws -> Int64 {
        try server.operate("read \(key)") { try $0.workspace(key).revision }
    }

    /// When the server will remove this clone by itself (by the real clock), for a clone made with a time to
    /// live; nil otherwise.
    public func expiry() async throws -> Date? {
        let summary = try server.operate("read \(key)") { try $0.workspace(key) }
        return summary.expiry.map { Date(timeIntervalSince1970: Double($0.expiresAt) / 1000) }
    }

    /// Back to where this workspace started, touching no other: its events, rejected events, fault rules,
    /// grants and run-time changes (`POST /_mock/reset?workspace=`). A clone comes back as it was made, under
    /// the same key and secret key (the server removes a reset clone; this clones it again). The clock, one
    /// per server, is left alone.
    public func reset() async throws {
        let _: ResetOutcome = try await server.operate("reset \(key)") { engine, done in
            try engine.reset(workspace: key) { done($0.mapError { $0 }) }
        }
        guard let origin else { return }
        _ = try server.operate("clone \(origin.base) again as \(key)") {
            try $0.cloneWorkspace(
                origin.base, as: key, secretKey: secretKey, ttlSeconds: origin.ttlSeconds.map(Int.init))
        }
    }

    /// Removes a clone with its events and fault rules. A workspace served from a file is not removed.
    /// Removing one already removed (or expired) is not an error.
    public func remove() async throws {
        guard isClone else { return }
        try await removeFaults()
        try await deleteEvents()
        do {
            let _: Int = try await server.operate("remove \(key)") { engine, done in
                try engine.deleteClone(key) { done($0.mapError { $0 }) }
            }
        } catch let error as GronaMockTestError where error.code == "unknown_workspace" {
            return
        }
    }
}
