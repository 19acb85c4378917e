/// `/_mock/clock`: the mock's time, which grant windows, `iat`/`exp`, `issuedAt`, schedules and
/// `receivedAt` all follow (contract §8).
enum ClockRoutes {
    static func register(on router: inout Router, clock: ServerClock) {
        router.on(.get, "/_mock/clock") { _ in HTTPResponse.json(state(clock)) }
        router.on(.post, "/_mock/clock") { request in
            let body = try RequestJSON.object(request)
            let known: Set<String> = ["advanceMs", "offsetMs", "freeze", "at", "reset"]
            if let unknown = body.keys.first(where: { !known.contains($0) }) {
                throw HTTPError(
                    .badRequest, code: "invalid_clock",
                    message:
                        "Unknown field \(Quote.text(unknown)); the clock takes advanceMs, offsetMs, freeze (with at), reset."
                )
            }
            if body["reset"]?.boolValue == true { clock.reset() }
            if let offset = body["offsetMs"] {
                guard let milliseconds = offset.int64Value else { throw invalid("offsetMs must be whole milliseconds") }
                clock.setOffset(milliseconds: milliseconds)
            }
            if let advance = body["advanceMs"] {
                guard let milliseconds = advance.int64Value else {
                    throw invalid("advanceMs must be whole milliseconds")
                }
                clock.advance(byMilliseconds: milliseconds)
            }
            if let freeze = body["freeze"] {
                guard let flag = freeze.boolValue else { throw invalid("freeze must be true or false") }
                if flag {
                    let at = body["at"]
                    guard at == nil || at?.int64Value != nil else {
                        throw invalid("at must be Unix epoch milliseconds")
                    }
                    clock.freeze(atMilliseconds: at?.int64Value)
                } else {
                    clock.unfreeze()
                }
            }
            return HTTPResponse.json(state(clock))
        }
    }

    private static func state(_ clock: ServerClock) -> String {
        let (now, offset, frozen) = clock.snapshot()
        return "{\"now\":\(now),\"offsetMs\":\(offset),\"frozen\":\(frozen)}"
    }

    private static func invalid(_ message: String) -> HTTPError {
        HTTPError(.badRequest, code: "invalid_clock", message: message + ".")
    }
}

/// Reading a `/_mock` request's JSON body, with the contract's error for anything else.
enum RequestJSON {
    static func object(_ request: HTTPRequest, allowEmpty: Bool = false) throws(HTTPError) -> JSONObject {
        if allowEmpty && request.body.isEmpty { return JSONObject() }
        guard let object = (try? JSONParser().parse(request.body))?.objectValue else {
            throw HTTPError(.badRequest, code: "malformed_json", message: "The body must be a JSON object.")
        }
        return object
    }
}
