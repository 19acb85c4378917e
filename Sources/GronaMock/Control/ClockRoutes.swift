import GronaMockHTTP
import GronaMockJSON

/// `/_mock/clock`: the mock's time, which grant windows, `iat`/`exp`, `issuedAt`, schedules and
/// `receivedAt` all follow (contract §8).
enum ClockRoutes {
    static func register(on router: inout Router, engine: GronaMockEngine) {
        router.on(.get, "/_mock/clock") { _ in HTTPResponse.json(engine.clockState().json.serialized()) }
        router.on(.post, "/_mock/clock") { request in
            let body = try RequestJSON.object(request)
            let known: Set<String> = ["advanceMs", "offsetMs", "freeze", "at", "reset"]
            if let unknown = body.keys.first(where: { !known.contains($0) }) {
                throw HTTPError(
                    .badRequest, code: .invalidClock,
                    message:
                        "Unknown field \(Quote.text(unknown)); the clock takes advanceMs, offsetMs, freeze (with at), reset."
                )
            }
            // Every value is checked before anything changes, so a bad request changes nothing.
            var change = ClockChange()
            change.offsetMilliseconds = try milliseconds(body["offsetMs"], "offsetMs")
            change.advanceMilliseconds = try milliseconds(body["advanceMs"], "advanceMs")
            change.freezeAt = try milliseconds(body["at"], "at")
            change.freeze = try boolean(body["freeze"], "freeze")
            change.reset = try boolean(body["reset"], "reset") ?? false
            if change.freezeAt != nil && change.freeze != true { throw invalid("at goes with \"freeze\": true") }
            return HTTPResponse.json(try engine.changeClock(change).json.serialized())
        }
    }

    /// Whole milliseconds: an offset or a step may span the whole range either way, a time must lie in it.
    /// Where the clock would end up is checked by `ServerClock.apply`.
    private static func milliseconds(_ value: JSONValue?, _ field: String) throws(HTTPError) -> Int64? {
        guard let value else { return nil }
        let span = MockTime.range.upperBound
        let allowed = field == "at" ? MockTime.range : -span...span
        guard let number = value.int64Value, allowed.contains(number) else {
            throw invalid(
                field == "at"
                    ? "at must be whole Unix epoch milliseconds from 0 to \(span) (9999-12-31T23:59:59.999Z)"
                    : "\(field) must be whole milliseconds from -\(span) to \(span)")
        }
        return number
    }

    private static func boolean(_ value: JSONValue?, _ field: String) throws(HTTPError) -> Bool? {
        guard let value else { return nil }
        guard let flag = value.boolValue else { throw invalid("\(field) must be true or false") }
        return flag
    }

    private static func invalid(_ message: String) -> HTTPError {
        HTTPError(.badRequest, code: .invalidClock, message: message + ".")
    }
}

/// Reading a `/_mock` request's JSON body, with the contract's error for anything else.
enum RequestJSON {
    static func object(_ request: HTTPRequest, allowEmpty: Bool = false) throws(HTTPError) -> JSONObject {
        if allowEmpty && request.body.isEmpty { return JSONObject() }
        guard let object = (try? JSONParser().parse(request.body))?.objectValue else {
            throw HTTPError(.badRequest, code: .malformedJson, message: "The body must be a JSON object.")
        }
        return object
    }
}
