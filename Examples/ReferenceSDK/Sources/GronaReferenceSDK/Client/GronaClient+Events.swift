import Foundation

extension GronaClient {
    /// Sends what may be sent now (`flush`): batch after batch until the queue is empty or delivery is held
    /// back (a failure's backoff, `Retry-After`, no network).
    public func flush() async {
        guard !isClosed else { return }
        await perform(delivery.flush(), thenFlush: true)
    }

    /// Logs a purchase (contract §7): its order, total, products and the treatments the order backend applied.
    public func purchase(
        orderID: String, totalMinor: Int64, currency: String?, productIDs: [String], treatments: [JSON]
    ) async {
        var object = eventHeader(.purchase)
        object["orderID"] = .string(orderID)
        object["totalMinor"] = .integer(totalMinor)
        if let currency { object["currency"] = .string(currency) }
        object["productIDs"] = .array(productIDs.map(JSON.string))
        object["treatments"] = .array(treatments)
        await log(object)
    }

    /// The fields every event has (contract §7): a fresh `eventID`, the SDK clock's `timestamp`, the session, the
    /// customer when identified, `demo` as the configuration says, and the revision in use.
    func eventHeader(_ type: EventType) -> JSONObject {
        var object = JSONObject()
        object["eventID"] = .string(UUID().uuidString.lowercased())
        object["type"] = .string(type.rawValue)
        object["timestamp"] = .integer(nowMs)
        object["sessionID"] = .string(sessionID)
        if let customerID = grants.customerID { object["customerID"] = .string(customerID) }
        if mutation != .noDemoFlag { object["demo"] = .bool(store.current?.configuration.demoMode ?? false) }
        if let revision = store.current?.configuration.revision { object["configRevision"] = .integer(revision) }
        return object
    }

    /// Queues an event; a batch that fills goes at once.
    func log(_ event: JSONObject) async {
        guard !isClosed, let eventID = event["eventID"]?.stringValue else { return }
        let queued = QueuedEvent(eventID: eventID, timestampMs: nowMs, json: .object(event))
        await perform(delivery.enqueue(queued))
    }

    /// Performs what the delivery machine asked, and what it asks after each answer. With `thenFlush`, keeps
    /// sending the queue while delivery may (a flush, or a backlog coming back online).
    func perform(_ first: DeliveryMachine.Action, thenFlush: Bool = false) async {
        var action = first
        if thenFlush, action == .none { action = delivery.flush() }
        while case .send(let batch) = action, !isClosed {
            let outcome = await post(batch)
            action = delivery.responded(outcome, nowMs: nowMs)
            if thenFlush, action == .none { action = delivery.flush() }
        }
    }

    /// One `POST /v1/mobile/events` (contract §7), gzip when asked, `sentAt` from the SDK's clock.
    private func post(_ batch: Batch) async -> DeliveryOutcome {
        let sentAt = mutation == .sentAtFromWallClock ? Int64(Date().timeIntervalSince1970 * 1000) : nowMs
        let envelope: JSON = [
            "workspaceKey": .string(options.workspaceKey), "installID": .string(options.installID),
            "sdk": ["platform": .string(SDKOptions.sdkPlatform), "version": .string(SDKOptions.sdkVersion)],
            "app": ["id": .string(options.app.id), "version": .string(options.app.version)],
            "sentAt": .integer(sentAt), "events": .array(batch.events.map(\.json)),
        ]
        var headers: [(name: String, value: String)] = [("Content-Type", "application/json")]
        var body = envelope.serialized
        if options.events.gzip, mutation != .noGzip, let compressed = Gzip.compress(body) {
            headers.append(("Content-Encoding", "gzip"))
            body = compressed
        }
        let url = options.baseURL.appendingPathComponent("v1/mobile/events")
        do {
            let response = try await transport.send(
                TransportRequest(method: "POST", url: url, headers: headers, body: body))
            return DeliveryOutcome(status: response.status, retryAfter: response.header("Retry-After"), nowMs: nowMs)
        } catch {
            return .failed
        }
    }
}
