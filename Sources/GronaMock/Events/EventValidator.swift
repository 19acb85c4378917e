import GronaMockJSON

/// Validates an events batch (contract §7): the envelope as a whole (a problem there fails the request), and
/// each event on its own (a problem there rejects that event, with the field and the reason).
enum EventValidator {
    static let maxEvents = 500
    static let maxEventBytes = 32 * 1024
    /// 10^15 minor units (ten trillion in a two-decimal currency): far above any order, and low enough that
    /// summing nine thousand of them cannot overflow the summary's 64-bit total.
    static let maxTotalMinor: Int64 = 1_000_000_000_000_000

    /// The envelope's fields every event shares.
    struct Envelope {
        var workspaceKey: String
        var installID: String
        var sentAt: Int64
        var events: [JSONValue]
        /// The events' own text, when the batch's body is at hand: each is stored from it rather than written
        /// again from its parsed value.
        var texts: EventTexts? = nil
    }

    /// Why a batch's envelope cannot be read: the request fails as a whole (contract §7).
    enum EnvelopeError: Error, Equatable {
        /// A missing or malformed field, with a sentence naming it.
        case invalid(String)
        /// More events than one batch may hold.
        case tooManyEvents(Int, limit: Int)
    }

    /// Reads the envelope; a missing or malformed field is an error naming it.
    static func envelope(_ document: JSONValue) throws(EnvelopeError) -> Envelope {
        guard let root = document.objectValue else {
            throw invalid("the body must be a JSON object (the batch envelope)")
        }
        guard let workspaceKey = root["workspaceKey"]?.stringValue, !workspaceKey.isEmpty else {
            throw invalid("workspaceKey is required (a string)")
        }
        guard let installID = root["installID"]?.stringValue, (1...128).contains(installID.utf8.count) else {
            throw invalid("installID is required (a string of 1 to 128 bytes)")
        }
        guard let sdk = root["sdk"]?.objectValue, sdk["platform"]?.stringValue != nil,
            sdk["version"]?.stringValue != nil
        else { throw invalid("sdk is required: {\"platform\": …, \"version\": …}") }
        guard let app = root["app"]?.objectValue, app["id"]?.stringValue != nil, app["version"]?.stringValue != nil
        else {
            throw invalid("app is required: {\"id\": …, \"version\": …}")
        }
        guard let sentAt = root["sentAt"]?.int64Value, sentAt > 0, MockTime.range.contains(sentAt) else {
            throw invalid(
                "sentAt is required (Unix epoch milliseconds, an integer from 1 to \(MockTime.range.upperBound))")
        }
        guard let events = root["events"]?.arrayValue else { throw invalid("events is required (a list)") }
        guard events.count <= maxEvents else {
            throw .tooManyEvents(events.count, limit: maxEvents)
        }
        return Envelope(workspaceKey: workspaceKey, installID: installID, sentAt: sentAt, events: events)
    }

    /// `timestamp + (receivedAt - sentAt)` (contract §7), clamped to `MockTime.range`: a device clock far
    /// behind the server can give a corrected time before 1970, which is stored as 0. The three inputs lie
    /// in the range, so the sum cannot overflow.
    static func correctedTimestamp(_ timestamp: Int64, sentAt: Int64, receivedAt: Int64) -> Int64 {
        MockTime.clamped(timestamp + (receivedAt - sentAt))
    }

    private static func invalid(_ message: String) -> EnvelopeError { .invalid(message) }

    /// One event: its record, or the field and reason it was rejected for. `json` is the event's compact text
    /// when the caller has it; otherwise it is written from `value`.
    static func event(
        _ value: JSONValue, json: [UInt8]? = nil, envelope: Envelope, receivedAt: Int64
    ) -> Result<EventRecord, EventRejection> {
        var check = EventCheck(value)
        let record = check.validate(envelope: envelope, receivedAt: receivedAt, json: json)
        if let rejection = check.rejection { return .failure(rejection) }
        guard let record else { return .failure(EventRejection(field: "", reason: "not an event")) }
        return .success(record)
    }
}

/// Why one event was rejected.
struct EventRejection: Error, Sendable {
    var field: String
    var reason: String
}

/// Checks one event, stopping at its first problem (a rejected event reports one field and one reason).
private struct EventCheck {
    let value: JSONValue
    var rejection: EventRejection?

    init(_ value: JSONValue) {
        self.value = value
    }

    var eventID: String? { value["eventID"]?.stringValue }

    mutating func validate(envelope: EventValidator.Envelope, receivedAt: Int64, json: [UInt8]?) -> EventRecord? {
        guard let object = value.objectValue else { return reject("", "an event must be a JSON object") }
        guard let eventID = string(object, "eventID", maxCharacters: 64) else { return nil }
        guard let name = string(object, "type") else { return nil }
        guard let type = EventType.known(name) else {
            return reject("type", "unknown event type \(Quote.text(name)); expected one of \(EventType.knownNames)")
        }
        // Within the mock's time range, like sentAt and receivedAt, so the skew correction below cannot
        // overflow; a time outside it rejects this one event.
        guard let timestamp = integer(object, "timestamp", in: 1...MockTime.range.upperBound) else { return nil }
        let sessionID = optionalString(object, "sessionID")
        let customerID = optionalString(object, "customerID")
        let demo = optionalBool(object, "demo") ?? false
        let configRevision = optionalInteger(object, "configRevision", in: 0...Int64.max)
        guard rejection == nil else { return nil }

        var record = EventRecord(
            workspaceKey: envelope.workspaceKey, eventID: eventID, type: type.rawValue, timestamp: timestamp,
            receivedAt: receivedAt,
            correctedTimestamp: EventValidator.correctedTimestamp(
                timestamp, sentAt: envelope.sentAt, receivedAt: receivedAt),
            installID: envelope.installID, customerID: customerID, sessionID: sessionID, demo: demo,
            configRevision: configRevision, treatments: [], json: json ?? value.serialized())
        if type.isPlacementEvent {
            placementFields(object, type: type, into: &record)
        } else {
            purchaseFields(object, into: &record)
        }
        return rejection == nil ? record : nil
    }

    // MARK: - Placement events

    private mutating func placementFields(_ object: JSONObject, type: EventType, into record: inout EventRecord) {
        guard let placement = oneOf(object, "placement", Placement.self) else { return }
        guard let screen = self.object(object, "screen", missing: "is required ({\"type\": …})") else { return }
        guard let screenType = oneOf(screen, "type", ScreenType.self, prefix: "screen.") else { return }
        switch screenType {
        case .product, .category:
            guard string(screen, "id", prefix: "screen.") != nil else { return }
        case .other:
            guard string(screen, "name", prefix: "screen.") != nil else { return }
        case .orderConfirmation:
            if let treatments = screen["treatments"] {
                guard let list = treatments.arrayValue,
                    list.allSatisfy({ $0.stringValue.map { TreatmentType.known($0) != nil } ?? false })
                else {
                    reject("screen.treatments", "must be a list of treatment types (\(TreatmentType.knownNames))")
                    return
                }
            }
        case .home, .categories, .search, .cart, .checkout, .unknown:
            break
        }
        guard let visitID = string(object, "visitID"),
            let campaignID = identifier(object, "campaignID"), let variantID = identifier(object, "variantID"),
            let arm = oneOf(object, "arm", Arm.self)
        else { return }
        if placement == .cartLine {
            guard string(object, "key") != nil else { return }
        } else if let key = object["key"], !key.isNull, key.stringValue == nil {
            reject("key", "must be a string or null, not \(key.described)")
            return
        }
        if let preview = object["preview"], !preview.isNull, preview.boolValue == nil, preview.stringValue == nil {
            reject("preview", "must be a preview token or a boolean, not \(preview.described)")
            return
        }
        if type == .action { action(object) }
        record.placement = placement.rawValue
        record.visitID = visitID
        record.campaignID = campaignID
        record.variantID = variantID
        record.arm = arm.rawValue
    }

    /// `action`: `{"kind", "lines", "replacedProductID", "route", "result"}`.
    private mutating func action(_ object: JSONObject) {
        guard
            let action = self.object(
                object, "action", missing: "is required on an action event ({\"kind\": …, \"result\": …})")
        else { return }
        guard let kind = oneOf(action, "kind", ActionKind.self, prefix: "action."),
            oneOf(action, "result", ActionResult.self, prefix: "action.") != nil
        else { return }
        if kind == .navigate {
            guard
                let route = self.object(
                    action, "route", prefix: "action.", missing: "is required for navigate ({\"type\": …})"),
                let routeType = oneOf(route, "type", RouteType.self, prefix: "action.route.")
            else { return }
            if routeType.takesID { _ = string(route, "id", prefix: "action.route.") }
            return
        }
        guard
            let lines = list(
                action, "lines", prefix: "action.",
                missing: "is required for \(kind): a list of {\"productID\", \"quantity\"}")
        else { return }
        guard !lines.isEmpty else {
            reject("action.lines", "must not be empty for \(kind)")
            return
        }
        for (index, line) in lines.enumerated() {
            let prefix = "action.lines[\(index)]."
            guard let line = line.objectValue else {
                reject("action.lines[\(index)]", "must be an object")
                return
            }
            guard string(line, "productID", prefix: prefix) != nil,
                integer(line, "quantity", in: 1...1000, prefix: prefix) != nil
            else { return }
        }
        if kind == .replace { _ = string(action, "replacedProductID", prefix: "action.") }
    }

    // MARK: - Purchases

    private mutating func purchaseFields(_ object: JSONObject, into record: inout EventRecord) {
        guard string(object, "orderID") != nil,
            let total = integer(object, "totalMinor", in: 0...EventValidator.maxTotalMinor)
        else {
            return
        }
        if let currency = object["currency"], !currency.isNull {
            guard let code = currency.stringValue, code.utf8.count == 3,
                code.utf8.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A })
            else {
                reject("currency", "must be an ISO 4217 code such as \"EUR\"")
                return
            }
        }
        if let products = object["productIDs"], !products.isNull {
            guard let list = products.arrayValue, list.allSatisfy({ !($0.stringValue ?? "").isEmpty }) else {
                reject("productIDs", "must be a list of product ids")
                return
            }
        }
        guard
            let treatments = list(
                object, "treatments", missing: "is required (a list, empty when no treatment was applied)")
        else { return }
        for (index, item) in treatments.enumerated() {
            let prefix = "treatments[\(index)]."
            guard let treatment = item.objectValue else {
                reject("treatments[\(index)]", "must be an object")
                return
            }
            guard let campaignID = identifier(treatment, "campaignID", prefix: prefix),
                let variantID = identifier(treatment, "variantID", prefix: prefix),
                let placement = oneOf(treatment, "placement", Placement.self, prefix: prefix),
                let type = oneOf(treatment, "type", TreatmentType.self, prefix: prefix),
                let valueMilli = integer(treatment, "valueMilli", in: 0...Int64.max, prefix: prefix)
            else { return }
            record.treatments.append(
                ClaimedTreatment(
                    campaignID: campaignID, variantID: variantID, placement: placement.rawValue, type: type.rawValue,
                    valueMilli: valueMilli))
        }
        record.totalMinor = total
    }

    // MARK: - Readers (each rejects and returns nil on a problem)

    @discardableResult
    private mutating func reject<T>(_ field: String, _ reason: String) -> T? {
        if rejection == nil { rejection = EventRejection(field: field, reason: reason) }
        return nil
    }

    private mutating func reject(_ field: String, _ reason: String) {
        if rejection == nil { rejection = EventRejection(field: field, reason: reason) }
    }

    private mutating func string(
        _ object: JSONObject, _ key: String, maxCharacters: Int = 256, prefix: String = ""
    ) -> String? {
        guard let value = object[key] else { return reject(prefix + key, "is required") }
        guard let text = value.stringValue else {
            return reject(prefix + key, "must be a string, not \(value.described)")
        }
        guard !text.isEmpty else { return reject(prefix + key, "must not be empty") }
        // Counting characters walks grapheme clusters; a text with no more bytes than that cannot have more.
        guard text.utf8.count <= maxCharacters || text.count <= maxCharacters else {
            return reject(prefix + key, "must be at most \(maxCharacters) characters")
        }
        return text
    }

    /// A required member that must be an object: "is required" when absent, the type when it is not one.
    private mutating func object(
        _ parent: JSONObject, _ key: String, prefix: String = "", missing: String
    ) -> JSONObject? {
        guard let value = parent[key] else { return reject(prefix + key, missing) }
        guard let object = value.objectValue else {
            return reject(prefix + key, "must be an object, not \(value.described)")
        }
        return object
    }

    /// A required member that must be a list.
    private mutating func list(
        _ parent: JSONObject, _ key: String, prefix: String = "", missing: String
    ) -> [JSONValue]? {
        guard let value = parent[key] else { return reject(prefix + key, missing) }
        guard let list = value.arrayValue else { return reject(prefix + key, "must be a list, not \(value.described)") }
        return list
    }

    private mutating func optionalString(_ object: JSONObject, _ key: String) -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        return string(object, key)
    }

    private mutating func optionalBool(_ object: JSONObject, _ key: String) -> Bool? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let flag = value.boolValue else { return reject(key, "must be true or false, not \(value.described)") }
        return flag
    }

    private mutating func integer(
        _ object: JSONObject, _ key: String, in range: ClosedRange<Int64>, prefix: String = ""
    ) -> Int64? {
        guard let value = object[key] else { return reject(prefix + key, "is required") }
        guard let number = value.int64Value else { return reject(prefix + key, "must be an integer, not \(value)") }
        guard range.contains(number) else {
            return reject(
                prefix + key,
                range.upperBound == Int64.max
                    ? "must be at least \(range.lowerBound), not \(number)"
                    : "must be from \(range.lowerBound) to \(range.upperBound), not \(number)")
        }
        return number
    }

    private mutating func optionalInteger(_ object: JSONObject, _ key: String, in range: ClosedRange<Int64>) -> Int64? {
        guard let value = object[key], !value.isNull else { return nil }
        return integer(object, key, in: range)
    }

    private mutating func identifier(_ object: JSONObject, _ key: String, prefix: String = "") -> String? {
        guard let text = string(object, key, maxCharacters: 64, prefix: prefix) else { return nil }
        guard IdentifierKind.campaignID.isValid(text) else {
            return reject(prefix + key, "\(Quote.text(text)) is not an id ([A-Za-z0-9][A-Za-z0-9_.-]{0,63})")
        }
        return text
    }

    /// A required member naming a known case of `vocabulary`; any other name rejects the event.
    private mutating func oneOf<Name: Vocabulary>(
        _ object: JSONObject, _ key: String, _ vocabulary: Name.Type, prefix: String = ""
    ) -> Name? {
        guard let text = string(object, key, prefix: prefix) else { return nil }
        guard let name = Name.known(text) else {
            return reject(prefix + key, "unknown \(Name.noun) \(Quote.text(text))")
        }
        return name
    }
}
