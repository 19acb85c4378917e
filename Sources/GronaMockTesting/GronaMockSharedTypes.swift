import Foundation
@_exported import GronaMockClient
import GronaMockJSON

// The kit's value types are the control client's (`GronaMockClient`, Foundation only), under the kit's names:
// one definition, so that a helper written for an in-process test works against `grona-mock exec` too.

/// An event the SDK sent and the mock stored (contract §7): `GronaMockClient.Event`.
public typealias GronaMockEvent = GronaMockClient.Event
/// Where a placement event happened and what it showed: `GronaMockClient.PlacementContext`.
public typealias GronaMockPlacementContext = GronaMockClient.PlacementContext
/// What an `action` event did: `GronaMockClient.Action`.
public typealias GronaMockAction = GronaMockClient.Action
/// A `purchase` event: `GronaMockClient.Purchase`.
public typealias GronaMockPurchase = GronaMockClient.Purchase
/// An event the mock refused: `GronaMockClient.RejectedEvent`.
public typealias GronaMockRejectedEvent = GronaMockClient.RejectedEvent
/// Which stored events to read or wait for: `GronaMockClient.EventFilter`.
public typealias GronaMockEventFilter = GronaMockClient.EventFilter
/// A way for a Grona endpoint to fail (docs/faults.md): `GronaMockClient.Fault`.
public typealias GronaMockFault = GronaMockClient.Fault
/// The endpoints a fault can target: `GronaMockClient.Endpoint`.
public typealias GronaMockEndpoint = GronaMockClient.Endpoint
/// A fault rule as the mock lists it: `GronaMockClient.FaultRule`.
public typealias GronaMockFaultRule = GronaMockClient.FaultRule
/// A breach of the SDK's side of the contract (docs/violations.md): `GronaMockClient.Violation`.
public typealias GronaMockViolation = GronaMockClient.Violation

// The engine answers in JSON values; these read them into the shared types.

extension GronaMockClient.Event {
    /// Decodes the inspection API's `events` list; an event that does not decode is an error naming it.
    static func decodeList(_ value: JSONValue?) throws -> [GronaMockEvent] {
        try (value?.arrayValue ?? []).map { event in
            do {
                return try decode(Data(event.serialized()))
            } catch {
                let id = event["eventID"]?.stringValue ?? "?"
                throw GronaMockTestError("event \(id) does not decode as a contract §7 event: \(error)")
            }
        }
    }
}

extension GronaMockClient.RejectedEvent {
    init(_ value: JSONValue) {
        self.init(
            eventID: value["eventID"]?.stringValue, index: Int(value["index"]?.int64Value ?? -1),
            field: value["field"]?.stringValue ?? "", reason: value["reason"]?.stringValue ?? "")
    }
}

extension GronaMockClient.Fault {
    /// The rule's fields but `endpoint`, `workspace` and `count`.
    var json: JSONObject {
        var rule: JSONObject = ["kind": .string(kind)]
        for (name, value) in parameters { rule.set(name, .number(JSONNumber(value))) }
        return rule
    }
}

extension GronaMockClient.FaultRule {
    init(_ value: JSONValue) {
        self.init(
            id: value["id"]?.stringValue ?? "", kind: value["kind"]?.stringValue ?? "",
            workspace: value["workspace"]?.stringValue, fired: Int(value["fired"]?.int64Value ?? 0),
            remaining: value["remaining"]?.int64Value.map { Int($0) })
    }
}

extension GronaMockClient.Violation {
    init(_ value: JSONValue) {
        self.init(
            rule: value["rule"]?.stringValue ?? "",
            eventIDs: (value["eventIDs"]?.arrayValue ?? []).compactMap(\.stringValue),
            eventCount: value["eventCount"]?.int64Value.map { Int(clamping: $0) },
            message: value["message"]?.stringValue ?? "")
    }
}
