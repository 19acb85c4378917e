import GronaMockHTTP
import GronaMockPlatform

/// The requests to the Grona endpoints on the event stream (`EngineEvent.requestAnswered`): a middleware on
/// the faultable endpoints' group (`FaultEngine.group`), outside the fault middleware so that it sees what a
/// fault answers too, and a note (`TrafficNote`) that each endpoint's handler fills in with what only it knows
/// (the workspace, the revision served, the batch). Nothing is recorded, and no note attached, while no
/// subscriber wants requests.
enum TrafficRecording {
    static func middleware(events: EngineEvents, clock: ServerClock) -> HTTPMiddleware {
        { request, responder, next in
            guard events.requestsWanted, let endpoint = FaultEngine.Endpoint(route: request.route),
                request.attachments[FaultEngine.Bypass.self] == nil
            else { return next(request, responder) }
            let note = TrafficNote()
            let receivedAt = clock.nowMilliseconds()
            let headers = AnsweredRequest.keptHeaders.compactMap { name in
                request.headers[name].map { (name: name, value: String($0.prefix(512))) }
            }
            let (method, path) = (request.method.description, request.path)
            // Published before the answer goes on, from whichever thread answers (the loop, the writer after
            // its commit, a delay's timer): whoever listens hears of it before the SDK can read it.
            let relay = HTTPResponder(relayingTo: responder) { response in
                let (workspace, detail) = note.noted
                let delivery: AnsweredRequest.Delivery =
                    switch response.delivery {
                    case .dropConnection: .dropped
                    case .truncated: .truncated
                    default: .whole
                    }
                events.publish(
                    .requestAnswered(
                        AnsweredRequest(
                            endpoint: endpoint, workspace: workspace, method: method, path: path, headers: headers,
                            receivedAt: receivedAt, answeredAt: clock.nowMilliseconds(),
                            status: delivery == .dropped ? 0 : response.status.code, delivery: delivery,
                            retryAfterSeconds: response.headers["Retry-After"].flatMap { Int($0) },
                            etag: response.headers["ETag"], detail: detail)))
                responder.send(response)
            }
            // Nobody dispatches through the relay: detached at once, it delivers as it is sent.
            _ = relay.finishDispatch()
            var request = request
            request.attachments[TrafficNote.self] = note
            next(request, relay)
        }
    }
}

/// What an endpoint's handler says about the request it serves, for its `AnsweredRequest`: attached by
/// `TrafficRecording` only while requests are wanted, so a handler's `request.traffic?` costs nothing
/// otherwise.
final class TrafficNote: Sendable {
    private struct Noted {
        var workspace: String?
        var detail: AnsweredRequest.Detail?
    }

    private let state = Mutex(Noted())

    var noted: (workspace: String?, detail: AnsweredRequest.Detail?) {
        state.withLock { ($0.workspace, $0.detail) }
    }

    func note(workspace: String) {
        state.withLock { $0.workspace = workspace }
    }

    func note(_ detail: AnsweredRequest.Detail) {
        state.withLock { $0.detail = detail }
    }

    /// The events of the batch noted before that were refused one by one.
    func noteRejected(_ indexes: [Int]) {
        state.withLock { noted in
            guard case .events(var batch)? = noted.detail else { return }
            batch.rejectedIndexes = indexes
            noted.detail = .events(batch)
        }
    }

    /// The counts of a committed batch, added to the batch noted before.
    func noteStored(accepted: Int, duplicates: Int) {
        state.withLock { noted in
            guard case .events(var batch)? = noted.detail else { return }
            batch.accepted = accepted
            batch.duplicates = duplicates
            noted.detail = .events(batch)
        }
    }
}

extension HTTPRequest {
    /// The request's traffic note, while requests are recorded.
    var traffic: TrafficNote? { attachments[TrafficNote.self] }
}
