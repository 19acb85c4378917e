/// The `event-validator` fuzz target: arbitrary bytes as the body of `POST /v1/mobile/events`, taken through
/// the steps of `EventsRoutes` for `Content-Type: application/json`: gunzip when the body starts with the
/// gzip magic (`Gzip.decompress` with the route's 512 KiB limit), `JSONParser().parse`,
/// `EventValidator.envelope`, then `EventsRoutes.validate` (which calls `EventValidator.event` for each
/// event). The one step left out is the registry lookup of `workspaceKey`: every workspace counts as served,
/// so no input stops there. `receivedAt`, the server clock's reading, is taken by the input's hash from the
/// ends of `MockTime.range` (which the clock never leaves; the control-bodies target checks that) and now,
/// so that the skew correction meets every extreme.
///
/// Invariants, each a trap when broken:
/// - nothing traps, whatever the body, its numbers (`1e400`, `-0`, 20-digit integers, timestamps near
///   `Int64.max` and `Int64.min`, `sentAt` 1) or `receivedAt`;
/// - gunzip never returns more than the limit, and a malformed stream is an error with a reason;
/// - the envelope is accepted exactly when its fields are as contract §7 says (checked here independently),
///   and a refusal is a 400 `invalid_envelope`, or a 413 `payload_too_large` for more than 500 events;
/// - when the batch parses, accepted + rejected = the number of events, every index is in exactly one of
///   the two, in order, and every rejection has a reason (and names a field unless the event is not an
///   object); the only error is a 413 for an event over 32 KiB, which then exists;
/// - an accepted record is the event: its JSON is the event's, its columns are the event's fields, each in
///   its documented range, and `correctedTimestamp` is `timestamp + (receivedAt - sentAt)` moved into
///   `MockTime.range` (computed here in 128 bits);
/// - validating an event twice gives the same answer.

func eventValidatorFuzz(_ input: [UInt8]) {
    var body = input
    if input.starts(with: [0x1F, 0x8B]) {
        do {
            body = try Gzip.decompress(input, limit: EventsRoutes.maxBodyBytes)
            Fuzz.require(body.count <= EventsRoutes.maxBodyBytes, "gunzip returned more than its limit")
        } catch {
            switch error {
            case .tooLarge(let limit): Fuzz.require(limit == EventsRoutes.maxBodyBytes, "another limit: \(limit)")
            case .malformed(let reason): Fuzz.require(!reason.isEmpty, "a gzip error without a reason")
            }
            return
        }
    } else if input.count > EventsRoutes.maxBodyBytes {
        return
    }

    // As the route reads it: with each event's text kept, so the events are stored from it.
    let document: JSONValue
    let ranges: [Range<Int>]
    do {
        (document, ranges) = try JSONParser().parse(body, keepingTextOf: "events")
    } catch {
        return  // 400 malformed_json; the json target checks the parser
    }

    let expectedEnvelope = EventsFuzz.envelopeIsValid(document)
    var envelope: EventValidator.Envelope
    do {
        envelope = try EventValidator.envelope(document)
    } catch {
        // The answer the client gets, from the one place domain errors become HTTP.
        let error = error.httpError
        let tooMany = (document["events"]?.arrayValue?.count ?? 0) > EventValidator.maxEvents
        if error.status.code == 413 {
            Fuzz.require(error.code.rawValue == "payload_too_large" && tooMany, "a 413 for \(error.message)")
            Fuzz.require(expectedEnvelope == nil, "a 413 for an envelope that is invalid, or valid")
        } else {
            Fuzz.require(
                error.status.code == 400 && error.code.rawValue == "invalid_envelope", "envelope error \(error)")
            Fuzz.require(expectedEnvelope == false, "refused a valid envelope: \(error.message)")
        }
        return
    }
    Fuzz.require(expectedEnvelope == true, "accepted an invalid envelope: \(Fuzz.show(document))")
    envelope.texts = EventTexts(body: body, ranges: ranges, count: envelope.events.count)
    Fuzz.require(envelope.texts != nil, "no kept text for an accepted envelope's events")
    Fuzz.require(envelope.events.count <= EventValidator.maxEvents, "accepted more than 500 events")
    Fuzz.require(envelope.sentAt > 0 && MockTime.range.contains(envelope.sentAt), "sentAt \(envelope.sentAt)")
    Fuzz.require(!envelope.workspaceKey.isEmpty, "accepted an empty workspaceKey")
    Fuzz.require((1...128).contains(envelope.installID.utf8.count), "accepted installID of the wrong length")

    let receivedAt = EventsFuzz.receivedAtChoices[Int(Fuzz.hash(input) % UInt64(EventsFuzz.receivedAtChoices.count))]
    let batch: EventBatch
    let rejections: [(Int, String?, EventRejection)]
    do {
        (batch, rejections) = try EventsRoutes.validate(envelope, receivedAt: receivedAt)
    } catch {
        Fuzz.require(
            error.status.code == 413 && error.code.rawValue == "payload_too_large", "validate threw \(error)")
        Fuzz.require(
            envelope.events.contains { $0.serialized().count > EventValidator.maxEventBytes },
            "a 413 for a batch without an event over 32 KiB: \(error.message)")
        return
    }
    EventsFuzz.check(batch, rejections, envelope: envelope, receivedAt: receivedAt)
}

enum EventsFuzz {
    /// What the server clock can read: now, and the ends of `MockTime.range`, which it never leaves.
    static let receivedAtChoices: [Int64] = [
        1_764_478_802_623, MockTime.range.lowerBound, MockTime.range.lowerBound + 1, MockTime.range.upperBound,
        MockTime.range.upperBound - 1,
    ]

    /// Contract §7's envelope, read independently of `EventValidator`: nil when only the event count is wrong.
    static func envelopeIsValid(_ document: JSONValue) -> Bool? {
        guard case .object(let root) = document else { return false }
        func string(_ value: JSONValue?) -> String? {
            if case .string(let text)? = value { text } else { nil }
        }
        guard let key = string(root["workspaceKey"]), !key.isEmpty else { return false }
        guard let install = string(root["installID"]), install.utf8.count >= 1, install.utf8.count <= 128 else {
            return false
        }
        guard case .object(let sdk)? = root["sdk"], string(sdk["platform"]) != nil, string(sdk["version"]) != nil
        else { return false }
        guard case .object(let app)? = root["app"], string(app["id"]) != nil, string(app["version"]) != nil else {
            return false
        }
        guard case .number(let sentAt)? = root["sentAt"], let milliseconds = Fuzz.wholeNumber(sentAt.text),
            milliseconds > 0,
            milliseconds <= MockTime.range.upperBound
        else { return false }
        guard case .array(let events)? = root["events"] else { return false }
        return events.count <= EventValidator.maxEvents ? true : nil
    }

    static func check(
        _ batch: EventBatch, _ rejections: [(Int, String?, EventRejection)], envelope: EventValidator.Envelope,
        receivedAt: Int64
    ) {
        let events = envelope.events
        Fuzz.require(batch.workspaceKey == envelope.workspaceKey, "the batch names another workspace")
        Fuzz.require(
            batch.accepted.count + batch.rejected.count == events.count,
            "accepted \(batch.accepted.count) + rejected \(batch.rejected.count) != \(events.count) events")
        Fuzz.require(rejections.count == batch.rejected.count, "rejections and rejected records differ in number")

        var accepted = batch.accepted.makeIterator()
        var rejectedIndex = 0
        for (index, event) in events.enumerated() {
            let outcome = EventValidator.event(event, envelope: envelope, receivedAt: receivedAt)
            if rejectedIndex < batch.rejected.count && batch.rejected[rejectedIndex].index == index {
                let record = batch.rejected[rejectedIndex]
                let (answerIndex, answerID, rejection) = rejections[rejectedIndex]
                rejectedIndex += 1
                guard case .failure(let again) = outcome else { Fuzz.fail("events[\(index)]: rejected, then accepted") }
                Fuzz.require(
                    again.field == record.field && again.reason == record.reason,
                    "events[\(index)]: validated again, another rejection")
                Fuzz.require(answerIndex == index && answerID == record.eventID, "events[\(index)]: answer differs")
                Fuzz.require(rejection.field == record.field && rejection.reason == record.reason, "answer differs")
                checkRejected(record, event: event, envelope: envelope, receivedAt: receivedAt)
            } else {
                guard let record = accepted.next() else {
                    Fuzz.fail("events[\(index)] is neither accepted nor rejected")
                }
                guard case .success = outcome else { Fuzz.fail("events[\(index)]: accepted, then rejected") }
                checkAccepted(record, event: event, index: index, envelope: envelope, receivedAt: receivedAt)
            }
        }
        Fuzz.require(rejectedIndex == batch.rejected.count, "rejected indexes out of order or out of range")
        Fuzz.require(accepted.next() == nil, "more accepted records than accepted events")
    }

    private static func checkRejected(
        _ record: RejectedEventRecord, event: JSONValue, envelope: EventValidator.Envelope, receivedAt: Int64
    ) {
        let at = "events[\(record.index)]"
        Fuzz.require(!record.reason.isEmpty, "\(at): a rejection without a reason")
        Fuzz.require(record.reason != "not an event", "\(at): rejected without naming a problem")
        Fuzz.require(
            !record.field.isEmpty || event.objectValue == nil, "\(at): rejected without a field: \(record.reason)")
        Fuzz.require(record.json == event.serialized(), "\(at): the rejected record's JSON is not the event")
        Fuzz.require(record.eventID == event["eventID"]?.stringValue.map { String($0.prefix(64)) }, "\(at): eventID")
        Fuzz.require(
            record.workspaceKey == envelope.workspaceKey && record.installID == envelope.installID
                && record.receivedAt == receivedAt, "\(at): the envelope's fields")
    }

    private static func checkAccepted(
        _ record: EventRecord, event: JSONValue, index: Int, envelope: EventValidator.Envelope, receivedAt: Int64
    ) {
        let at = "events[\(index)] (accepted)"
        guard let object = event.objectValue else { Fuzz.fail("\(at) is not an object") }
        Fuzz.require(record.json == event.serialized(), "\(at): the record's JSON is not the event")
        Fuzz.require(record.json.count <= EventValidator.maxEventBytes, "\(at): over 32 KiB")
        Fuzz.require(
            record.workspaceKey == envelope.workspaceKey && record.installID == envelope.installID
                && record.receivedAt == receivedAt, "\(at): the envelope's fields")
        Fuzz.require(object["eventID"] == .string(record.eventID), "\(at): eventID")
        Fuzz.require(!record.eventID.isEmpty && record.eventID.count <= 64, "\(at): eventID length")
        Fuzz.require(object["type"] == .string(record.type), "\(at): type")
        Fuzz.require(EventType.known(record.type) != nil, "\(at): type \(record.type)")
        Fuzz.require(object["timestamp"]?.int64Value == record.timestamp, "\(at): timestamp")
        Fuzz.require(MockTime.range.contains(record.timestamp) && record.timestamp >= 1, "\(at): timestamp range")
        let corrected = Int128(record.timestamp) + Int128(receivedAt) - Int128(envelope.sentAt)
        let clamped = min(max(corrected, Int128(MockTime.range.lowerBound)), Int128(MockTime.range.upperBound))
        Fuzz.require(Int128(record.correctedTimestamp) == clamped, "\(at): correctedTimestamp")
        Fuzz.require(record.demo == (object["demo"]?.boolValue ?? false), "\(at): demo")
        func optional(_ key: String) -> JSONValue? {
            guard let value = object[key], !value.isNull else { return nil }
            return value
        }
        Fuzz.require(optional("sessionID") == record.sessionID.map(JSONValue.string), "\(at): sessionID")
        Fuzz.require(optional("customerID") == record.customerID.map(JSONValue.string), "\(at): customerID")
        Fuzz.require(optional("configRevision")?.int64Value == record.configRevision, "\(at): configRevision")
        Fuzz.require((record.configRevision ?? 0) >= 0, "\(at): negative configRevision")

        if record.type == "purchase" {
            Fuzz.require(record.placement == nil && record.arm == nil && record.campaignID == nil, "\(at): placement")
            guard let total = record.totalMinor else { Fuzz.fail("\(at): a purchase without totalMinor") }
            Fuzz.require(total >= 0 && object["totalMinor"]?.int64Value == total, "\(at): totalMinor \(total)")
            Fuzz.require(
                record.treatments.count == object["treatments"]?.arrayValue?.count, "\(at): treatments lost")
            for treatment in record.treatments {
                Fuzz.require(treatment.valueMilli >= 0, "\(at): valueMilli \(treatment.valueMilli)")
                Fuzz.require(IdentifierKind.campaignID.isValid(treatment.campaignID), "\(at): treatment campaignID")
                Fuzz.require(IdentifierKind.campaignID.isValid(treatment.variantID), "\(at): treatment variantID")
                Fuzz.require(Placement.known(treatment.placement) != nil, "\(at): treatment placement")
                Fuzz.require(TreatmentType.known(treatment.type) != nil, "\(at): treatment type")
            }
            if let currency = optional("currency") {
                let code = currency.stringValue ?? ""
                Fuzz.require(
                    code.utf8.count == 3 && code.utf8.allSatisfy { $0 >= 0x41 && $0 <= 0x5A }, "\(at): currency")
            }
        } else {
            Fuzz.require(EventType(rawValue: record.type).isPlacementEvent, "\(at): type")
            Fuzz.require(record.totalMinor == nil && record.treatments.isEmpty, "\(at): purchase fields")
            guard let placement = record.placement, let arm = record.arm, let campaignID = record.campaignID,
                let variantID = record.variantID, let visitID = record.visitID
            else { Fuzz.fail("\(at): a placement event without its placement fields") }
            Fuzz.require(Placement.known(placement) != nil, "\(at): placement \(placement)")
            Fuzz.require(["treatment", "control", "holdout"].contains(arm), "\(at): arm \(arm)")
            Fuzz.require(
                IdentifierKind.campaignID.isValid(campaignID) && IdentifierKind.campaignID.isValid(variantID),
                "\(at): ids")
            Fuzz.require(!visitID.isEmpty && object["visitID"] == .string(visitID), "\(at): visitID")
            Fuzz.require(object["placement"] == .string(placement), "\(at): placement differs")
            guard case .object(let screen)? = object["screen"], let screenType = screen["type"]?.stringValue,
                ScreenType.known(screenType) != nil
            else { Fuzz.fail("\(at): accepted without a known screen type") }
            if record.type == "action" {
                guard case .object(let action)? = object["action"], let kind = action["kind"]?.stringValue,
                    ["add", "add_all", "replace", "navigate"].contains(kind)
                else { Fuzz.fail("\(at): an action event without a known action kind") }
                if kind != "navigate" {
                    let lines = action["lines"]?.arrayValue ?? []
                    Fuzz.require(!lines.isEmpty, "\(at): an \(kind) action without lines")
                    for line in lines {
                        let quantity = line["quantity"]?.int64Value ?? 0
                        Fuzz.require((1...1000).contains(quantity), "\(at): a line of quantity \(quantity)")
                    }
                }
            }
        }
    }
}
