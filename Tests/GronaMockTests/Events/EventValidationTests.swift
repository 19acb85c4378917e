import Foundation
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

@testable import GronaMock

// Over 400 lines on purpose: the table of valid and invalid events, one row per field rule of contract §7.

/// One valid event: accepted, then listed by `GET /_mock/events` with the server's fields.
struct ValidEventCase: Sendable, CustomTestStringConvertible {
    var name: String
    var event: JSONValue
    var testDescription: String { name }
}

/// One invalid event: rejected, with the field and (a part of) the reason the endpoint gives.
struct InvalidEventCase: Sendable, CustomTestStringConvertible {
    var name: String
    var event: JSONValue
    var field: String
    var reason: String
    var testDescription: String { "\(name) -> \(field): \(reason)" }
}

/// Per-event validation of `POST /v1/mobile/events` (contract §7): a problem rejects that event only, with
/// the field and a reason, and the rejected event is kept for `GET /_mock/events/rejected`.
@Suite("Event validation")
struct EventValidationTests {
    // MARK: - Valid events of each type

    static let eligible = SampleEvents.placementEvent("eligible", id: "ev-eligible")
    static let anchorVisible = SampleEvents.placementEvent(
        "anchor_visible", id: "ev-anchor", placement: "pdp_below_buy", screen: ["type": "product", "id": "sku-1"])
    static let exposure = SampleEvents.placementEvent(
        "exposure", id: "ev-exposure", variantID: "control", arm: "control")
    static let served = SampleEvents.placementEvent(
        "served", id: "ev-served", placement: "cart_line", screen: ["type": "cart"], key: "line-sku-9")
    static let action = SampleEvents.placementEvent(
        "action", id: "ev-action", extra: [("action", SampleEvents.addAction())])
    static let dismiss = SampleEvents.placementEvent(
        "dismiss", id: "ev-dismiss", placement: "order_confirmation",
        screen: ["type": "order_confirmation", "treatments": ["percent_off", "free_delivery"]],
        extra: [("preview", true)])
    static let purchase = SampleEvents.purchase(id: "ev-purchase")
    static let replace = SampleEvents.placementEvent(
        "action", id: "ev-replace", placement: "cart_line", screen: ["type": "cart"], key: "line-sku-0",
        extra: [("action", replaceAction)])
    static let replaceAction: JSONValue = [
        "kind": "replace", "lines": [["productID": "sku-1", "quantity": 1]], "replacedProductID": "sku-0",
        "result": "partial",
    ]

    static let validCases: [ValidEventCase] = [
        ValidEventCase(name: "eligible on home", event: eligible),
        ValidEventCase(
            name: "eligible on a category screen with its id",
            event: SampleEvents.placementEvent(
                "eligible", id: "ev-eligible-plp", placement: "plp_inline", screen: ["type": "category", "id": "fruit"])
        ),
        ValidEventCase(name: "anchor_visible on a product screen with its id", event: anchorVisible),
        ValidEventCase(name: "exposure in the control arm", event: exposure),
        ValidEventCase(
            name: "exposure in the holdout arm on an other screen with its name",
            event: SampleEvents.placementEvent(
                "exposure", id: "ev-exposure-other", placement: "membership_top",
                screen: ["type": "other", "name": "loyalty"], arm: "holdout")),
        ValidEventCase(name: "served on cart_line with a key", event: served),
        ValidEventCase(
            name: "served, demo, with a customer",
            event: SampleEvents.placementEvent("served", id: "ev-served-demo", demo: true)
                .editing("customerID", "cust_1")),
        ValidEventCase(name: "action add, accepted", event: action),
        ValidEventCase(
            name: "action navigate to a product",
            event: action.editing("eventID", "ev-navigate").editing(
                "action", ["kind": "navigate", "route": ["type": "product", "id": "sku-1"], "result": "accepted"])),
        ValidEventCase(name: "action replace on cart_line, partial", event: replace),
        ValidEventCase(
            name: "action add_all, rejected by the host",
            event: action.editing("eventID", "ev-add-all").editing("action.kind", "add_all")
                .editing("action.result", "rejected")),
        ValidEventCase(name: "dismiss on order_confirmation with treatments and a preview", event: dismiss),
        ValidEventCase(
            name: "dismiss with a preview token",
            event: dismiss.editing("eventID", "ev-dismiss-token").editing("preview", "pv_123")),
        ValidEventCase(name: "purchase with a treatment", event: purchase),
        ValidEventCase(
            name: "purchase without treatments or currency",
            event: SampleEvents.purchase(id: "ev-purchase-plain", treatments: []).editing("currency", nil)),
    ]

    @Test("a valid event is accepted by the validator, with the skew-corrected time", arguments: validCases)
    func validEvent(_ row: ValidEventCase) throws {
        let timestamp = try #require(row.event["timestamp"]?.int64Value)
        let envelope = try EventValidator.envelope(EventsAPI.envelope([row.event], installID: "install-row"))
        let result = EventValidator.event(row.event, envelope: envelope, receivedAt: EventsAPI.receivedAt)
        let record = try result.get()
        #expect(record.workspaceKey == "shop")
        #expect(record.installID == "install-row")
        #expect(record.receivedAt == EventsAPI.receivedAt)
        #expect(record.correctedTimestamp == timestamp + (EventsAPI.receivedAt - EventsAPI.sentAt))
    }

    @Test("every valid event, posted in one batch, is stored and listed with the server's fields")
    func validEventsListed() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            server.clock.freeze(atMilliseconds: EventsAPI.receivedAt)
            let events = Self.validCases.map(\.event)
            let (status, answer) = try EventsAPI.post(server.port, events: events, installID: "install-row")
            #expect(status == 200)
            #expect(answer["accepted"]?.int64Value == Int64(events.count))
            #expect(answer["rejected"] == [])
            let stored = try EventsAPI.stored(server.port)
            for row in Self.validCases {
                let id = row.event["eventID"]
                let listed = try #require(stored.first { $0["eventID"] == id }, "\(row.name) not listed")
                for (name, value) in try #require(row.event.objectValue) {
                    #expect(listed[name] == value, "\(row.name): stored \(name)")
                }
                #expect(listed["workspaceKey"] == "shop")
                #expect(listed["installID"] == "install-row")
                #expect(listed["receivedAt"]?.int64Value == EventsAPI.receivedAt)
                let timestamp = row.event["timestamp"]?.int64Value ?? 0
                #expect(
                    listed["correctedTimestamp"]?.int64Value == timestamp + (EventsAPI.receivedAt - EventsAPI.sentAt))
            }
            #expect(try EventsAPI.rejected(server.port).isEmpty)
        }
    }

    // MARK: - Invalid events: at least two of each type, and the common fields

    static let commonCases: [InvalidEventCase] = [
        InvalidEventCase(
            name: "an event that is not an object", event: "exposure", field: "", reason: "must be a JSON object"),
        InvalidEventCase(
            name: "eventID missing", event: eligible.editing("eventID", nil), field: "eventID", reason: "is required"),
        InvalidEventCase(
            name: "eventID of 65 characters",
            event: eligible.editing("eventID", .string(String(repeating: "e", count: 65))),
            field: "eventID", reason: "at most 64"),
        InvalidEventCase(
            name: "eventID empty", event: eligible.editing("eventID", ""), field: "eventID", reason: "must not be empty"
        ),
        InvalidEventCase(
            name: "eventID a number", event: eligible.editing("eventID", 42), field: "eventID",
            reason: "must be a string"),
        InvalidEventCase(
            name: "unknown type", event: exposure.editing("type", "impression"), field: "type",
            reason: "unknown event type \"impression\""),
        InvalidEventCase(
            name: "type missing", event: exposure.editing("type", nil), field: "type", reason: "is required"),
        InvalidEventCase(
            name: "timestamp with a fraction", event: exposure.editing("timestamp", number("1764478799001.5")),
            field: "timestamp", reason: "must be an integer"),
        InvalidEventCase(
            name: "timestamp as a string", event: exposure.editing("timestamp", "1764478799001"), field: "timestamp",
            reason: "must be an integer"),
        InvalidEventCase(
            name: "timestamp with a fraction in exponent form",
            event: exposure.editing("timestamp", number("1.7644787990015e12")),
            field: "timestamp", reason: "must be an integer"),
        InvalidEventCase(
            name: "timestamp missing", event: exposure.editing("timestamp", nil), field: "timestamp",
            reason: "is required"),
        InvalidEventCase(
            name: "timestamp zero", event: exposure.editing("timestamp", 0), field: "timestamp",
            reason: "must be from 1 to 253402300799999, not 0"),
        InvalidEventCase(
            name: "demo as a string", event: exposure.editing("demo", "true"), field: "demo", reason: "true or false"),
        InvalidEventCase(
            name: "configRevision negative", event: exposure.editing("configRevision", -1), field: "configRevision",
            reason: "at least 0"),
        InvalidEventCase(
            name: "sessionID a number", event: exposure.editing("sessionID", 7), field: "sessionID",
            reason: "must be a string"),
    ]

    static let placementCases: [InvalidEventCase] = [
        // eligible
        InvalidEventCase(
            name: "eligible: unknown placement", event: eligible.editing("placement", "home_topp"), field: "placement",
            reason: "unknown placement \"home_topp\""),
        InvalidEventCase(
            name: "eligible: screen missing", event: eligible.editing("screen", nil), field: "screen",
            reason: "is required"),
        InvalidEventCase(
            name: "eligible: screen not an object", event: eligible.editing("screen", "home"), field: "screen",
            reason: "must be an object"),
        InvalidEventCase(
            name: "eligible: unknown screen type", event: eligible.editing("screen.type", "homepage"),
            field: "screen.type", reason: "unknown screen type \"homepage\""),
        // anchor_visible
        InvalidEventCase(
            name: "anchor_visible: product screen without id", event: anchorVisible.editing("screen.id", nil),
            field: "screen.id", reason: "is required"),
        InvalidEventCase(
            name: "anchor_visible: product screen with an empty id", event: anchorVisible.editing("screen.id", ""),
            field: "screen.id", reason: "must not be empty"),
        InvalidEventCase(
            name: "anchor_visible: visitID missing", event: anchorVisible.editing("visitID", nil), field: "visitID",
            reason: "is required"),
        // exposure
        InvalidEventCase(
            name: "exposure: unknown arm", event: exposure.editing("arm", "variant"), field: "arm",
            reason: "unknown arm \"variant\""),
        InvalidEventCase(
            name: "exposure: arm missing", event: exposure.editing("arm", nil), field: "arm", reason: "is required"),
        InvalidEventCase(
            name: "exposure: campaignID not an id", event: exposure.editing("campaignID", "../home-hero"),
            field: "campaignID", reason: "is not an id"),
        InvalidEventCase(
            name: "exposure: variantID missing", event: exposure.editing("variantID", nil), field: "variantID",
            reason: "is required"),
        InvalidEventCase(
            name: "exposure: key a number", event: exposure.editing("key", 5), field: "key",
            reason: "must be a string or null"),
        // served
        InvalidEventCase(
            name: "served: cart_line without key", event: served.editing("key", nil), field: "key",
            reason: "is required"),
        InvalidEventCase(
            name: "served: cart_line with a null key", event: served.editing("key", .null), field: "key",
            reason: "must be a string, not null"),
        InvalidEventCase(
            name: "served: other screen without name",
            event: served.editing("placement", "membership_top").editing("screen", ["type": "other"]),
            field: "screen.name", reason: "is required"),
        InvalidEventCase(
            name: "served: category screen without id",
            event: served.editing("placement", "plp_inline").editing("screen", ["type": "category"]),
            field: "screen.id", reason: "is required"),
        // action
        InvalidEventCase(
            name: "action: action missing", event: action.editing("action", nil), field: "action",
            reason: "is required on an action event"),
        InvalidEventCase(
            name: "action: unknown kind", event: action.editing("action.kind", "buy"), field: "action.kind",
            reason: "unknown action kind \"buy\""),
        InvalidEventCase(
            name: "action: result missing", event: action.editing("action.result", nil), field: "action.result",
            reason: "is required"),
        InvalidEventCase(
            name: "action: unknown result", event: action.editing("action.result", "ok"), field: "action.result",
            reason: "unknown action result \"ok\""),
        InvalidEventCase(
            name: "action: add without lines", event: action.editing("action.lines", nil), field: "action.lines",
            reason: "is required for add"),
        InvalidEventCase(
            name: "action: add_all with no lines",
            event: action.editing("action.kind", "add_all").editing("action.lines", []), field: "action.lines",
            reason: "must not be empty for add_all"),
        InvalidEventCase(
            name: "action: quantity 0", event: action.editing("action.lines.0.quantity", 0),
            field: "action.lines[0].quantity", reason: "from 1 to 1000"),
        InvalidEventCase(
            name: "action: a line without productID", event: action.editing("action.lines.0.productID", nil),
            field: "action.lines[0].productID", reason: "is required"),
        InvalidEventCase(
            name: "action: navigate without route",
            event: action.editing("action", ["kind": "navigate", "result": "accepted"]), field: "action.route",
            reason: "is required for navigate"),
        InvalidEventCase(
            name: "action: navigate to an unknown route type",
            event: action.editing("action", ["kind": "navigate", "route": ["type": "search"], "result": "accepted"]),
            field: "action.route.type", reason: "unknown route type \"search\""),
        InvalidEventCase(
            name: "action: replace without replacedProductID", event: action.editing("action.kind", "replace"),
            field: "action.replacedProductID", reason: "is required"),
        // dismiss
        InvalidEventCase(
            name: "dismiss: unknown treatment on order_confirmation",
            event: dismiss.editing("screen.treatments", ["ten_off"]), field: "screen.treatments",
            reason: "must be a list of treatment types"),
        InvalidEventCase(
            name: "dismiss: order_confirmation treatments not a list",
            event: dismiss.editing("screen.treatments", "percent_off"), field: "screen.treatments",
            reason: "must be a list of treatment types"),
        InvalidEventCase(
            name: "dismiss: preview a number", event: dismiss.editing("preview", 3), field: "preview",
            reason: "a preview token or a boolean"),
        InvalidEventCase(
            name: "dismiss: placement missing", event: dismiss.editing("placement", nil), field: "placement",
            reason: "is required"),
    ]

    static let purchaseCases: [InvalidEventCase] = [
        InvalidEventCase(
            name: "purchase: orderID missing", event: purchase.editing("orderID", nil), field: "orderID",
            reason: "is required"),
        InvalidEventCase(
            name: "purchase: totalMinor missing", event: purchase.editing("totalMinor", nil), field: "totalMinor",
            reason: "is required"),
        InvalidEventCase(
            name: "purchase: totalMinor negative", event: purchase.editing("totalMinor", -1), field: "totalMinor",
            reason: "must be from 0 to 1000000000000000, not -1"),
        InvalidEventCase(
            name: "purchase: totalMinor in major units", event: purchase.editing("totalMinor", number("49.99")),
            field: "totalMinor", reason: "must be an integer"),
        InvalidEventCase(
            name: "purchase: currency in lower case", event: purchase.editing("currency", "eur"), field: "currency",
            reason: "ISO 4217"),
        InvalidEventCase(
            name: "purchase: currency of four letters", event: purchase.editing("currency", "EURO"),
            field: "currency", reason: "ISO 4217"),
        InvalidEventCase(
            name: "purchase: an empty product id", event: purchase.editing("productIDs", [""]), field: "productIDs",
            reason: "list of product ids"),
        InvalidEventCase(
            name: "purchase: treatments missing", event: purchase.editing("treatments", nil), field: "treatments",
            reason: "is required"),
        InvalidEventCase(
            name: "purchase: unknown treatment type", event: purchase.editing("treatments.0.type", "bogo"),
            field: "treatments[0].type", reason: "unknown treatment type \"bogo\""),
        InvalidEventCase(
            name: "purchase: treatment without campaignID", event: purchase.editing("treatments.0.campaignID", nil),
            field: "treatments[0].campaignID", reason: "is required"),
        InvalidEventCase(
            name: "purchase: treatment with an unknown placement",
            event: purchase.editing("treatments.0.placement", "checkout"), field: "treatments[0].placement",
            reason: "unknown placement \"checkout\""),
        InvalidEventCase(
            name: "purchase: negative valueMilli", event: purchase.editing("treatments.0.valueMilli", -5),
            field: "treatments[0].valueMilli", reason: "at least 0"),
    ]

    @Test(
        "an invalid event is rejected with its field and reason",
        arguments: commonCases + placementCases + purchaseCases)
    func invalidEvent(_ row: InvalidEventCase) throws {
        let envelope = try EventValidator.envelope(EventsAPI.envelope([row.event], installID: "install-row"))
        switch EventValidator.event(row.event, envelope: envelope, receivedAt: EventsAPI.receivedAt) {
        case .success:
            Issue.record("\(row.name) was accepted")
        case .failure(let rejection):
            #expect(rejection.field == row.field)
            #expect(rejection.reason.contains(row.reason), "reason: \(rejection.reason)")
        }
    }

    @Test("invalid events posted together are each rejected, listed with reasons and kept for inspection")
    func invalidEventsKept() throws {
        let fixture = try MockFixture.standard()
        let rows = Self.commonCases + Self.placementCases + Self.purchaseCases
        try fixture.withServer { server in
            server.clock.freeze(atMilliseconds: EventsAPI.receivedAt)
            let (status, answer) = try EventsAPI.post(server.port, events: rows.map(\.event), installID: "install-row")
            #expect(status == 200)
            #expect(answer["accepted"] == 0)
            let rejections = answer["rejected"]?.arrayValue ?? []
            #expect(rejections.count == rows.count)
            for (index, row) in rows.enumerated() {
                let rejection = rejections.first { $0["index"]?.int64Value == Int64(index) }
                #expect(rejection?["field"]?.stringValue == row.field, "\(row.name)")
                #expect(rejection?["reason"]?.stringValue?.contains(row.reason) == true, "\(row.name)")
            }
            #expect(try EventsAPI.stored(server.port).isEmpty)
            let kept = try EventsAPI.rejected(server.port)
            #expect(kept.count == rows.count)
            #expect(kept.allSatisfy { $0["installID"] == "install-row" })
            #expect(kept.allSatisfy { $0["receivedAt"]?.int64Value == EventsAPI.receivedAt })
        }
    }

    @Test("every event type has a valid example and at least two invalid ones")
    func coverage() {
        let validTypes = Set(Self.validCases.compactMap { $0.event["type"]?.stringValue })
        let invalid = Self.placementCases + Self.purchaseCases
        for type in ["eligible", "anchor_visible", "exposure", "served", "action", "dismiss", "purchase"] {
            #expect(validTypes.contains(type), "valid \(type)")
            let count = invalid.filter { $0.event["type"]?.stringValue == type }.count
            #expect(count >= 2, "invalid \(type): \(count)")
        }
    }

    // MARK: - Batches

    @Test("rejected events never fail the batch: the others are accepted, the rejected listed with reasons")
    func mixedBatch() throws {
        let fixture = try MockFixture.standard()
        let events: [JSONValue] = [
            Self.eligible,
            Self.exposure.editing("eventID", "bad-placement").editing("placement", "home_topp"),
            Self.purchase,
            42,
            Self.action.editing("eventID", "bad-action").editing("action.result", nil),
            Self.served,
        ]
        try fixture.withServer { server in
            server.clock.freeze(atMilliseconds: EventsAPI.receivedAt)
            let (status, answer) = try EventsAPI.post(server.port, events: events, installID: "install-mixed")
            #expect(status == 200)
            #expect(answer["accepted"] == 3)
            #expect(answer["duplicates"] == 0)
            let rejections = answer["rejected"]?.arrayValue ?? []
            #expect(rejections.map { $0["index"]?.int64Value ?? -1 } == [1, 3, 4])
            #expect(rejections.map { $0["eventID"] ?? "?" } == ["bad-placement", .null, "bad-action"])
            #expect(rejections.map { $0["field"]?.stringValue ?? "?" } == ["placement", "", "action.result"])

            let stored = try EventsAPI.stored(server.port)
            #expect(EventsAPI.eventIDs(stored) == ["ev-eligible", "ev-purchase", "ev-served"])

            let kept = try EventsAPI.rejected(server.port)
            #expect(kept.map { $0["index"]?.int64Value ?? -1 } == [1, 3, 4])
            #expect(kept.map { $0["field"]?.stringValue ?? "?" } == ["placement", "", "action.result"])
            #expect(kept.first?["reason"]?.stringValue?.contains("unknown placement \"home_topp\"") == true)
            #expect(kept.last?["reason"]?.stringValue == "is required")
            #expect(kept.map { $0["event"] ?? .null } == [events[1], events[3], events[4]])
            #expect(kept.allSatisfy { $0["workspaceKey"] == "shop" && $0["installID"] == "install-mixed" })
        }
    }

    @Test("a batch whose every event is rejected is still a 200, with nothing stored")
    func allRejected() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let events = [Self.eligible.editing("arm", "b"), Self.purchase.editing("orderID", nil)]
            let (status, answer) = try EventsAPI.post(server.port, events: events)
            #expect(status == 200)
            #expect(answer["accepted"] == 0)
            #expect(answer["rejected"]?.arrayValue?.count == 2)
            let stored = try EventsAPI.stored(server.port)
            #expect(stored.isEmpty)
            let kept = try EventsAPI.rejected(server.port)
            #expect(kept.count == 2)
        }
    }

    // MARK: - Known issues

    @Test("eventID counts characters, not bytes: 64 non-ASCII characters are accepted (contract §7)")
    func eventIDInCharacters() throws {
        let fixture = try MockFixture.standard()
        let id = String(repeating: "é", count: 64)
        try fixture.withServer { server in
            let (_, answer) = try EventsAPI.post(server.port, events: [Self.exposure.editing("eventID", .string(id))])
            #expect(answer["accepted"] == 1)

        }
    }
}

/// A JSON number from its text (a fraction or an exponent the integer literals cannot spell).
private func number(_ text: String) -> JSONValue {
    JSONNumber(text: text).map(JSONValue.number) ?? .null
}

extension JSONValue {
    /// A copy with the member at a dotted path (`screen.id`, `action.lines.0.quantity`) set to `value`, or
    /// removed when `value` is nil.
    fileprivate func editing(_ path: String, _ value: JSONValue?) -> JSONValue {
        editing(path.split(separator: ".")[...], value)
    }

    private func editing(_ path: ArraySlice<Substring>, _ value: JSONValue?) -> JSONValue {
        guard let first = path.first else { return value ?? .null }
        let rest = path.dropFirst()
        switch self {
        case .object(var object):
            let key = String(first)
            if rest.isEmpty && value == nil {
                object.remove(key)
            } else {
                object.set(key, (object[key] ?? .object(JSONObject())).editing(rest, value))
            }
            return .object(object)
        case .array(var items):
            guard let index = Int(first), items.indices.contains(index) else { return self }
            if rest.isEmpty && value == nil {
                items.remove(at: index)
            } else {
                items[index] = items[index].editing(rest, value)
            }
            return .array(items)
        default:
            return self
        }
    }
}
