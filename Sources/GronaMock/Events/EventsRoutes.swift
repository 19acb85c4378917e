import GronaMockHTTP
import GronaMockJSON

/// `POST /v1/mobile/events` (contract §7): whole-request problems fail the request; per-event problems
/// reject just that event; the answer is sent once the accepted events are committed.
enum EventsRoutes {
    /// The body may be at most 512 KiB, after gunzip; a compressed body of JSON is always smaller than what
    /// it inflates to, so the same limit refuses an oversized raw body before it is read.
    static let maxBodyBytes = 512 * 1024
    static let maxRawBytes = maxBodyBytes

    /// The fault endpoint `events`.
    static let pattern = "/v1/mobile/events"

    /// `offload`: batches of at least `threshold` bytes of JSON (`EventsOffload`) are decoded, parsed and
    /// validated on `pool` instead of the event loop that read them.
    static func register(
        on router: inout Router, registry: WorkspaceRegistry, store: EventStore, clock: ServerClock,
        offload: EventsOffload? = nil
    ) {
        router.on(.post, pattern, bodyLimit: maxRawBytes) { request, responder in
            guard let offload, offload.takes(request.body) else {
                return handle(request, responder, registry: registry, store: store, clock: clock)
            }
            offload.pool.execute { handle(request, responder, registry: registry, store: store, clock: clock) }
        }
    }

    private static func handle(
        _ request: HTTPRequest, _ responder: HTTPResponder, registry: WorkspaceRegistry, store: EventStore,
        clock: ServerClock
    ) {
        // Events have no endpoint-specific faults: only the generic kinds apply. The rules of the batch's
        // workspace are asked once the batch parsed (those without a workspace were, as it started).
        responder.sendingErrors {
            let receivedAt = clock.nowMilliseconds()
            let envelope = try readEnvelope(request, registry: registry)
            // The batch is noted before the rules of its workspace are asked, so that a faulted batch is
            // heard with its events too (a retry can be compared with it).
            let traffic = request.traffic
            traffic?.note(workspace: envelope.workspaceKey)
            traffic?.note(
                .events(
                    AnsweredRequest.EventsDetail(
                        installID: envelope.installID, sentAt: envelope.sentAt, events: envelope.events,
                        rejectedIndexes: [])))
            if let answer = request.faults?.enter(workspace: envelope.workspaceKey) {
                return responder.send(answer)
            }
            let (batch, rejections) = try validate(envelope, receivedAt: receivedAt)
            traffic?.noteRejected(rejections.map(\.0))
            guard let writer = store.writer else { throw HTTPError.storageUnavailable }
            writer.submit(
                .write(batch) { result in
                    switch result {
                    case .success(let counts):
                        traffic?.noteStored(accepted: counts.accepted, duplicates: counts.duplicates)
                        responder.send(acknowledgement(counts, rejections))
                    case .failure: responder.send(HTTPError.storageUnavailable.response)
                    }
                })
        }
    }

    /// Decodes and parses a batch, and checks its envelope and that its workspace is served: everything before
    /// the events themselves are validated.
    static func readEnvelope(
        _ request: HTTPRequest, registry: WorkspaceRegistry
    ) throws(HTTPError) -> EventValidator.Envelope {
        let body = try decodedBody(request)
        let document: JSONValue
        let eventRanges: [Range<Int>]
        do {
            (document, eventRanges) = try JSONParser().parse(body, keepingTextOf: "events")
        } catch {
            throw HTTPError(.badRequest, code: .malformedJson, message: "The body is not valid JSON: \(error).")
        }
        var envelope: EventValidator.Envelope
        do {
            envelope = try EventValidator.envelope(document)
        } catch {
            throw error.httpError
        }
        envelope.texts = EventTexts(body: body, ranges: eventRanges, count: envelope.events.count)
        guard registry.entry(for: envelope.workspaceKey) != nil else {
            throw HTTPError.unknownWorkspace(envelope.workspaceKey)
        }
        return envelope
    }

    /// Validates each event of a parsed batch: the accepted records and the rejections, ready to write.
    static func validate(
        _ envelope: EventValidator.Envelope, receivedAt: Int64
    ) throws(HTTPError) -> (EventBatch, [(Int, String?, EventRejection)]) {
        var batch = EventBatch(workspaceKey: envelope.workspaceKey, accepted: EventRows(), rejected: [])
        // About the size of an SDK event's fields and JSON, so packing grows the buffer once or not at all.
        batch.accepted.reserveCapacity(rows: envelope.events.count, bytesPerRow: 384)
        var rejections: [(Int, String?, EventRejection)] = []
        for (index, event) in envelope.events.enumerated() {
            let json = envelope.texts?.json(at: index) ?? event.serialized()
            guard json.count <= EventValidator.maxEventBytes else { throw eventTooLarge(index, json.count) }
            switch EventValidator.event(event, json: json, envelope: envelope, receivedAt: receivedAt) {
            case .success(let record):
                batch.accepted.append(record)
            case .failure(let rejection):
                let eventID = event["eventID"]?.stringValue.map { String($0.prefix(64)) }
                rejections.append((index, eventID, rejection))
                batch.rejectedTypes.add(slot: EventTypeCounts.slot(of: event["type"]?.stringValue))
                batch.rejected.append(
                    RejectedEventRecord(
                        workspaceKey: envelope.workspaceKey, index: index, eventID: eventID, field: rejection.field,
                        reason: rejection.reason, receivedAt: receivedAt, installID: envelope.installID, json: json))
            }
        }
        return (batch, rejections)
    }

    /// The body as JSON bytes: gzip (by `Content-Encoding`, or by its magic bytes) inflated as it streams,
    /// stopping at 512 KiB, so a gzip bomb is refused after 512 KiB of output, not inflated.
    private static func decodedBody(_ request: HTTPRequest) throws(HTTPError) -> [UInt8] {
        let mediaType = request.headers["Content-Type"]?.split(separator: ";").first?.trimmingASCIIWhitespace()
            .lowercasedASCII()
        guard let mediaType, mediaType == "application/json" || mediaType.hasSuffix("+json") else {
            throw HTTPError(
                .unsupportedMediaType, code: .unsupportedMediaType,
                message: "Send the batch as Content-Type: application/json, optionally with Content-Encoding: gzip.")
        }
        let codings = request.headers.tokens("Content-Encoding").filter { $0 != "identity" }
        let gzipMagic = request.body.starts(with: [0x1F, 0x8B])
        guard codings.isEmpty || codings == ["gzip"] || codings == ["x-gzip"] else {
            throw HTTPError(
                .unsupportedMediaType, code: .unsupportedMediaType,
                message: "Content-Encoding may be gzip or nothing, not \(codings.joined(separator: ", ").prefix(40)).")
        }
        guard !codings.isEmpty || gzipMagic else {
            guard request.body.count <= maxBodyBytes else { throw tooLarge }
            return request.body
        }
        do {
            return try Gzip.decompress(request.body, limit: maxBodyBytes)
        } catch {
            switch error {
            case .tooLarge:
                throw tooLarge
            case .malformed(let reason):
                let what =
                    codings.isEmpty
                    ? "The body starts like gzip but is not" : "Content-Encoding says gzip but the body is not"
                throw HTTPError(
                    .unsupportedMediaType, code: .unsupportedMediaType, message: "\(what) valid gzip (\(reason)).")
            }
        }
    }

    private static let tooLarge = HTTPError(
        .contentTooLarge, code: .payloadTooLarge, message: "A batch is at most 512 KiB of JSON (after gunzip).")

    private static func eventTooLarge(_ index: Int, _ bytes: Int) -> HTTPError {
        HTTPError(
            .contentTooLarge, code: .payloadTooLarge,
            message: "events[\(index)] is \(bytes) bytes; an event is at most 32 KiB (32768 bytes).")
    }

    /// `{"accepted": 48, "duplicates": 1, "rejected": [{"index", "eventID", "field", "reason"}]}`.
    private static func acknowledgement(
        _ counts: EventBatchResult, _ rejections: [(Int, String?, EventRejection)]
    ) -> HTTPResponse {
        let rejected: [JSONValue] = rejections.map { index, eventID, rejection in
            .object([
                "index": .number(JSONNumber(index)), "eventID": eventID.map(JSONValue.string) ?? .null,
                "field": .string(rejection.field), "reason": .string(rejection.reason),
            ])
        }
        let body: JSONObject = [
            "accepted": .number(JSONNumber(counts.accepted)), "duplicates": .number(JSONNumber(counts.duplicates)),
            "rejected": .array(rejected),
        ]
        return HTTPResponse.json(JSONValue.object(body).serialized())
    }
}

extension HTTPError {
    /// 503 when the database cannot take the events; nothing was acknowledged, so the SDK retries.
    static let storageUnavailable = HTTPError(
        .serviceUnavailable, code: .storageUnavailable,
        message: "The events could not be stored; nothing from this batch was kept. Retry.",
        headers: ["Retry-After": "1"])
}
