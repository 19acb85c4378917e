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
            // Every value is checked before anything changes, so a bad request changes nothing.
            let offset = try milliseconds(body["offsetMs"], "offsetMs")
            let advance = try milliseconds(body["advanceMs"], "advanceMs")
            let at = try milliseconds(body["at"], "at")
            let freeze = body["freeze"]
            guard freeze == nil || freeze?.boolValue != nil else { throw invalid("freeze must be true or false") }
            if body["reset"]?.boolValue == true { clock.reset() }
            if let offset { clock.setOffset(milliseconds: offset) }
            if let advance { clock.advance(byMilliseconds: advance) }
            switch freeze?.boolValue {
            case true?: clock.freeze(atMilliseconds: at)
            case false?: clock.unfreeze()
            case nil: break
            }
            return HTTPResponse.json(state(clock))
        }
    }

    /// ±100 years in milliseconds: any test's needs, and far from where the arithmetic could overflow.
    static let limit: Int64 = 100 * 366 * 86_400_000

    private static func milliseconds(_ value: JSONValue?, _ field: String) throws(HTTPError) -> Int64? {
        guard let value else { return nil }
        guard let number = value.int64Value,
            (-limit...limit).contains(number) || field == "at" && (0...4 * limit).contains(number)
        else {
            throw invalid(
                "\(field) must be whole milliseconds within ±100 years\(field == "at" ? " (Unix epoch)" : "")")
        }
        return number
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
