// Over 400 lines on purpose: one fuzz target with a model of each control body it decodes (workspace, fault,
// clock), each model beside the checks that compare the server with it.

/// The `control-bodies` fuzz target: the request bodies of the control API under `/_mock`. The first byte
/// chooses the decoder (modulo 3), the rest is the body:
///
/// - 0 (`0`, `3`, `6`, ...): `POST /_mock/faults`, through the route's own handler (`FaultRoutes.register` on a
///   `Router`, called without a server), then the rule it added (twice, to see the first that fires win)
///   asked by 32 requests through `FaultEngine.start` and `Pass.enter` as the endpoints ask it;
/// - 1 (`1`, `4`, `7`, ...): `POST /_mock/clock`, through `ClockRoutes`' handler: the body is cut at NUL bytes
///   (which JSON text cannot hold) into up to 8 requests to one `ServerClock`; then every integer in the
///   bodies is given straight to the `ServerClock` methods, beyond the route's ±100-year limits;
/// - 2 (`2`, `5`, `8`, ...): a workspace document, as `PUT /_mock/workspaces/{key}` and the file loader read
///   it: `WorkspaceValidator.validate` (with its `ConfigValidator`, `CampaignValidator`, `ContentValidator`,
///   `TargetingValidator`), then what serving it computes: `ConfigurationSigner.payload` and `contentHash`,
///   and `Assignment.variant`. The key the URL names is `acme-market` when `first / 3` is even, else `hostile`;
///   the signing keys that exist are those of the repository's `keys/` directory.
///
/// Invariants, each a trap when broken:
/// - nothing traps; the routes answer at once, with 201/200 or a 400 carrying the contract's error body
///   (`malformed_json` exactly when the body is not JSON, else `invalid_fault` / `invalid_clock`);
/// - faults: the route accepts exactly the rules `FaultRule.parse` accepts; the listing repeats the rule
///   (endpoint, workspace, kind, count, probability as written, seed, the kind's parameters in their
///   ranges with their defaults) with `fired` 0; then the fires, `seen`, `remaining` and the answers of both
///   rules follow contract §8 as modelled here (count, probability with its SplitMix64 seed, workspace
///   scoping, the first rule that fires wins, an exhausted rule draws nothing), a status answers with its
///   code and `Retry-After`, and a truncation always cuts a body short;
/// - clock: a refused request changes nothing; an accepted one sets exactly the offset and frozen time the
///   body asks for (clamped, never wrapped), and its answer is the clock's new state; the clock's methods
///   never trap for any Int64, `freeze(at:)` then reads back exactly, and `nowSeconds` is the floor of it;
/// - workspaces: a document without a workspace has an error; every problem has a reason and a path that
///   (or whose parent) exists in the document or its `config`; a secret is never quoted in its problem; a
///   workspace without errors has every field in its documented range, weights summing to 10,000 so that
///   every unit gets a variant; and the signed payload of any workspace it returns (served even with errors
///   under `?allowInvalid=true`) parses, keeps `schemaVersion`, `workspaceKey`, `revision` and `issuedAt`
///   as the server sets them, and carries the config's members.

func controlBodiesFuzz(_ input: [UInt8]) {
    guard let selector = input.first else { return }
    let body = Array(input.dropFirst())
    switch selector % 3 {
    case 0: ControlFuzz.faultRule(body)
    case 1: ControlFuzz.clock(body)
    default: ControlFuzz.workspace(body, key: (selector / 3) % 2 == 0 ? "acme-market" : "hostile")
    }
}

enum ControlFuzz {
    /// Routes one request to its handler, as the server does, and returns the answer it sent before returning.
    static func send(_ router: Router, _ method: HTTPMethod, _ target: String, _ body: [UInt8]) -> HTTPResponse {
        let head = HTTPRequestHead(
            method: method, target: target, headers: ["Host": "x", "Content-Type": "application/json"],
            framing: .contentLength(body.count))
        var request = HTTPRequest(head: head, body: body)
        switch router.match(method, path: head.path) {
        case .failure(let error):
            Fuzz.fail("no route for \(method) \(target): \(error.message)")
        case .route(let handler, let parameters, _, _):
            request.pathParameters = parameters
            let responder = HTTPResponder { _ in Fuzz.fail("\(target) answered after its handler returned") }
            handler(request, responder)
            guard let response = responder.finishDispatch() else { Fuzz.fail("\(target) did not answer at once") }
            return response
        }
    }

    // MARK: - Fault rules

    static func faultRule(_ body: [UInt8]) {
        var router = Router()
        let engine = FaultEngine()
        FaultRoutes.register(on: &router, engine: Fuzz.engine)
        // The run's one engine keeps its rules: each input starts with none.
        defer { _ = try? Fuzz.engine.faults.clear() }
        let response = send(router, .post, "/_mock/faults", body)
        let document = try? JSONParser().parse(body)
        let rule = document.flatMap { try? FaultRule.parse($0) }
        switch response.status.code {
        case 201:
            guard let document, let rule else { Fuzz.fail("201 for a rule FaultRule.parse refuses") }
            let id = Fuzz.jsonBody(response, "POST /_mock/faults")["id"]?.stringValue ?? ""
            Fuzz.require(id.hasPrefix("fault-"), "id \(id)")
            Fuzz.require(response.headers["Location"] == "/_mock/faults/\(id)", "Location of the rule")
            checkListing(Fuzz.jsonBody(response, "POST /_mock/faults"), document: document, rule: rule)
            simulate(rule, in: engine)
        case 400:
            let code = Fuzz.errorCode(response, "POST /_mock/faults")
            Fuzz.require(code == (document == nil ? "malformed_json" : "invalid_fault"), "error code \(code)")
            Fuzz.require(rule == nil, "400 for a rule FaultRule.parse accepts")
        default:
            Fuzz.fail("POST /_mock/faults answered \(response.status.code): \(Fuzz.show(response.body))")
        }
    }

    private static func checkListing(_ listing: JSONValue, document: JSONValue, rule: FaultRule) {
        let known: Set<String> = [
            "id", "endpoint", "workspace", "kind", "count", "probability", "seed", "fired", "remaining", "seen",
            "status", "retryAfterSeconds", "delayMs", "afterBytes",
        ]
        guard let object = listing.objectValue else { Fuzz.fail("the listing is not an object") }
        Fuzz.require(object.keys.allSatisfy(known.contains), "unknown fields in the listing: \(object.keys)")
        for field in ["endpoint", "workspace", "kind", "count"] {
            Fuzz.require(
                Fuzz.sameValue(object[field], document[field]),
                "\(field) lists as \(String(describing: object[field]))")
        }
        Fuzz.require(object["fired"] == 0 && object["seen"] == 0, "a new rule has fired or seen")
        Fuzz.require(Fuzz.sameValue(object["remaining"], document["count"] ?? .null), "remaining of a new rule")
        Fuzz.require(object["probability"] == document["probability"], "probability lists as written")
        let seed = { (value: JSONValue?) in value?.numberValue.flatMap { Fuzz.wholeUnsigned($0.text) } }
        Fuzz.require(seed(object["seed"]) == seed(document["seed"]), "seed lists as another number")
        Fuzz.require((object["seed"] == nil) == (document["seed"] == nil), "seed listed or lost")

        switch rule.kind {
        case .status:
            let status = object["status"]?.int64Value ?? 0
            Fuzz.require((400...599).contains(status) && object["status"] == document["status"], "status \(status)")
            let retry = object["retryAfterSeconds"]
            if let given = document["retryAfterSeconds"] {
                Fuzz.require(retry?.int64Value == given.int64Value, "retryAfterSeconds lists as another value")
            } else {
                Fuzz.require(retry == (status == 429 || status == 503 ? 1 : nil), "default retryAfterSeconds")
            }
            Fuzz.require((0...86_400).contains(retry?.int64Value ?? 0), "retryAfterSeconds out of range")
        case .delay:
            let delay = object["delayMs"]?.int64Value ?? -1
            Fuzz.require(
                (0...600_000).contains(delay) && delay == document["delayMs"]?.int64Value, "delay \(delay)")
        case .truncate:
            Fuzz.require(
                object["afterBytes"]?.int64Value == document["afterBytes"]?.int64Value, "afterBytes lists as another")
            Fuzz.require((0...Int64(Int32.max)).contains(object["afterBytes"]?.int64Value ?? 0), "afterBytes range")
        default:
            for field in ["status", "retryAfterSeconds", "delayMs", "afterBytes"] {
                Fuzz.require(object[field] == nil, "\(rule.kind.rawValue) lists \(field)")
            }
        }
        if let only = rule.kind.onlyEndpoint {
            Fuzz.require(rule.target == .endpoint(only), "\(rule.kind.rawValue) on endpoint \(rule.target.name)")
        }
        if let workspace = rule.workspace {
            Fuzz.require(
                IdentifierKind.workspaceKey.isValid(workspace), "workspace \(workspace) is not a workspace key")
        }
    }

    /// One rule as contract §8 describes it, to predict the engine.
    private struct ModelRule {
        let rule: FaultRule
        var generator: SplitMix64?
        var seen = 0
        var fired = 0

        init(_ rule: FaultRule) {
            self.rule = rule
            generator = rule.seed.map { SplitMix64(seed: $0) }
        }

        var remaining: Int? { rule.count.map { $0 - fired } }
    }

    /// One pass of `decide`: every rule of this endpoint and workspace takes its draw; the first hit fires.
    private static func decide(
        _ rules: inout [ModelRule], _ endpoint: FaultEngine.Endpoint, workspace: String?, claimed: Bool
    ) -> FaultAction? {
        var chosen: FaultAction?
        for index in rules.indices
        where rules[index].rule.target.matches(endpoint) && rules[index].rule.workspace == workspace {
            if rules[index].remaining == 0 { continue }
            rules[index].seen += 1
            var hit = true
            if let probability = rules[index].rule.probability?.double, var generator = rules[index].generator {
                hit = SplitMix64.fires(generator.next(), probability: probability)
                rules[index].generator = generator
            }
            if hit && !claimed && chosen == nil {
                rules[index].fired += 1
                chosen = rules[index].rule.action
            }
        }
        return chosen
    }

    private static func answers(_ action: FaultAction?) -> Bool {
        switch action {
        case .status?, .dropConnection?: true
        default: false
        }
    }

    private static func simulate(_ rule: FaultRule, in engine: FaultEngine) {
        // The same rule twice, so that the second copy's draws and counts are checked beside the first's.
        // Rules in memory (`LocalFaultRules`) are never refused: only a database can fail to take one.
        for _ in 0..<2 {
            guard (try? engine.add(rule)) != nil else { Fuzz.fail("the in-memory rules refused a rule") }
        }
        var model = [ModelRule(rule), ModelRule(rule)]
        let workspaces = [rule.workspace ?? "run-1", "zz-other"]
        for request in 0..<32 {
            let endpoint = FaultEngine.Endpoint.allCases[request % 3]
            let workspace = workspaces[(request / 3) % 2]
            let first = decide(&model, endpoint, workspace: nil, claimed: false)
            let responder = HTTPResponder { _ in Fuzz.fail("a fault answered after dispatch") }
            guard let (pass, delivery) = engine.start(endpoint, responder) else {
                Fuzz.require(answers(first), "request \(request): start answered, the model does not")
                checkAnswer(responder.finishDispatch(), first)
                continue
            }
            Fuzz.require(!answers(first), "request \(request): the model answers at start, the engine does not")
            let second = decide(&model, endpoint, workspace: workspace, claimed: first != nil)
            Fuzz.require(first == nil || second == nil, "two rules fired for one request")
            if let answer = pass.enter(workspace: workspace) {
                Fuzz.require(answers(second), "request \(request): enter answered, the model does not")
                checkAnswer(answer, second)
                continue
            }
            Fuzz.require(!answers(second), "request \(request): the model answers on enter, the engine does not")
            let applied = first ?? second
            switch applied {
            case .truncateBody(let afterBytes)?:
                for length in [0, 1, 10, 4096] {
                    let cut = FaultEngine.cut(length, afterBytes: afterBytes)
                    Fuzz.require(cut >= 0 && (cut < length || length == 0), "a truncation of \(length) keeps \(cut)")
                }
                delivery.send(HTTPResponse.json("{\"ok\":true}"))
                guard let sent = responder.finishDispatch() else { Fuzz.fail("the truncating relay sent nothing") }
                let expected = FaultEngine.cut(11, afterBytes: afterBytes)
                Fuzz.require(sent.delivery == .truncated(afterBytes: expected), "truncated as \(sent.delivery)")
            case .delay?, nil:
                Fuzz.require(pass.fault == nil, "a fault left for the handler that no rule fired")
            default:
                Fuzz.require(
                    pass.fault.map(FaultAction.tamper) == applied,
                    "the endpoint's fault is \(String(describing: pass.fault))")
            }
        }
        guard let listing = try? engine.listing() else { Fuzz.fail("the in-memory rules could not be listed") }
        Fuzz.require(listing.count == 2, "\(listing.count) rules listed")
        for (index, (listed, expected)) in zip(listing, model).enumerated() {
            Fuzz.require(listed["id"] == .string("fault-\(index + 1)"), "rule ids")
            Fuzz.require(listed["fired"]?.int64Value == Int64(expected.fired), "rule \(index + 1): fired")
            Fuzz.require(listed["seen"]?.int64Value == Int64(expected.seen), "rule \(index + 1): seen")
            let remaining = expected.remaining.map { JSONValue.number(JSONNumber($0)) } ?? .null
            Fuzz.require(listed["remaining"] == remaining, "rule \(index + 1): remaining")
            Fuzz.require(expected.fired <= expected.seen, "fired more often than seen")
            if let probability = rule.probability?.double, probability == 0 {
                Fuzz.require(expected.fired == 0, "probability 0 fired")
            }
        }
        // An in-memory engine: its storage calls cannot fail, and a failure would be a finding.
        let removed = (try? engine.remove(id: "fault-1")) == true && (try? engine.remove(id: "fault-1")) == false
        Fuzz.require(removed, "remove fault-1 once")
        let cleared = (try? engine.listing(id: "fault-2")) != nil && (try? engine.clear()) == 1
        Fuzz.require(cleared, "clear the last rule")
    }

    private static func checkAnswer(_ response: HTTPResponse?, _ action: FaultAction?) {
        guard let response else { Fuzz.fail("a fault answered nothing") }
        switch action {
        case .status(let code, let retryAfter)?:
            Fuzz.require(response.status.code == code, "answered \(response.status.code), not \(code)")
            Fuzz.require(response.headers["Retry-After"] == retryAfter.map(String.init), "Retry-After")
            Fuzz.require(Fuzz.errorCode(response, "an injected status") == "injected_fault", "injected code")
        case .dropConnection?:
            Fuzz.require(response.delivery == .dropConnection, "a drop delivered as \(response.delivery)")
        default:
            Fuzz.fail("an answer for \(String(describing: action))")
        }
    }

    // MARK: - Clock

    static func clock(_ body: [UInt8]) {
        var router = Router()
        let clock = Fuzz.engine.clock
        // The run's one engine keeps its clock: each input starts from the wall clock.
        clock.reset()
        ClockRoutes.register(on: &router, engine: Fuzz.engine)
        var integers: [Int64] = []
        for request in body.split(separator: 0, omittingEmptySubsequences: false).prefix(8) {
            clockRequest(Array(request), router: router, clock: clock, integers: &integers)
        }
        for value in integers.prefix(8) { clockMethods(value) }
    }

    /// The clock's state as the model sees it: the offset from the wall clock, and the frozen time.
    private struct ClockState {
        var offset: Int64
        var frozen: Int64?

        /// What the clock reads at `wall`, before any clamping.
        func now(wall: Int64) -> Int64 { frozen ?? clampedSum(wall, offset) }
    }

    private static func clockRequest(_ body: [UInt8], router: Router, clock: ServerClock, integers: inout [Int64]) {
        let before = clock.snapshot()
        let document = try? JSONParser().parse(body)
        collectIntegers(document, into: &integers)
        let wallBefore = ServerClock.wallMilliseconds()
        let response = send(router, .post, "/_mock/clock", body)
        let wallAfter = ServerClock.wallMilliseconds()
        let after = clock.snapshot()
        for reading in [before.now, after.now, clock.nowMilliseconds()] {
            Fuzz.require(MockTime.range.contains(reading), "the clock reads \(reading), outside MockTime.range")
        }
        let unchanged =
            after.offsetMilliseconds == before.offsetMilliseconds && after.frozen == before.frozen
            && (!after.frozen || after.now == before.now)
        guard let request = ClockRequest(document) else {
            Fuzz.require(response.status.code == 400, "POST /_mock/clock answered \(response.status.code)")
            let code = Fuzz.errorCode(response, "POST /_mock/clock")
            Fuzz.require(code == (document?.objectValue == nil ? "malformed_json" : "invalid_clock"), "code \(code)")
            Fuzz.require(unchanged, "a refused request changed the clock: \(Fuzz.show(body))")
            return
        }
        // Contract §8: reset, offsetMs, advanceMs, then freeze, all or nothing; refused when the clock would
        // leave MockTime.range. The wall clock moved during the request, so the model runs at both ends.
        let start = ClockState(offset: before.offsetMilliseconds, frozen: before.frozen ? before.now : nil)
        let early = request.applied(to: start, wall: wallBefore)
        let late = request.applied(to: start, wall: wallAfter)
        let fitsEarly = MockTime.range.contains(early.now(wall: wallBefore))
        let fitsLate = MockTime.range.contains(late.now(wall: wallAfter))
        if response.status.code == 400 {
            Fuzz.require(!(fitsEarly && fitsLate), "refused a change that stays in range: \(Fuzz.show(body))")
            Fuzz.require(Fuzz.errorCode(response, "POST /_mock/clock") == "invalid_clock", "out-of-range code")
            Fuzz.require(unchanged, "a refused request changed the clock: \(Fuzz.show(body))")
            return
        }
        Fuzz.require(response.status.code == 200, "POST /_mock/clock answered \(response.status.code)")
        Fuzz.require(fitsEarly || fitsLate, "accepted a change that leaves the range: \(Fuzz.show(body))")
        Fuzz.require(
            between(after.offsetMilliseconds, early.offset, late.offset),
            "offset \(after.offsetMilliseconds), expected \(early.offset)…\(late.offset): \(Fuzz.show(body))")
        Fuzz.require(after.frozen == (early.frozen != nil), "frozen is \(after.frozen): \(Fuzz.show(body))")
        if let low = early.frozen, let high = late.frozen {
            Fuzz.require(between(after.now, low, high), "frozen at \(after.now), expected \(low)…\(high)")
        }

        let answer = Fuzz.jsonBody(response, "POST /_mock/clock")
        Fuzz.require(answer.objectValue?.keys == ["now", "offsetMs", "frozen"], "clock answer \(Fuzz.show(answer))")
        Fuzz.require(answer["offsetMs"]?.int64Value == after.offsetMilliseconds, "answered another offset")
        Fuzz.require(answer["frozen"]?.boolValue == after.frozen, "answered another frozen")
        let now = answer["now"]?.int64Value ?? -1
        Fuzz.require(MockTime.range.contains(now), "answered now \(now), outside MockTime.range")
        if after.frozen { Fuzz.require(now == after.now, "answered another frozen now") }
    }

    private static func between(_ value: Int64, _ one: Int64, _ other: Int64) -> Bool {
        min(one, other) <= value && value <= max(one, other)
    }

    /// What a clock body asks for, read independently of `ClockRoutes`; nil when it must be refused whatever
    /// the clock's state (not JSON, an unknown field, a value of the wrong type or out of its range).
    private struct ClockRequest {
        var reset = false
        var offset: Int64?
        var advance: Int64?
        var at: Int64?
        var freeze: Bool?

        init?(_ document: JSONValue?) {
            guard case .object(let body)? = document else { return nil }
            let span = MockTime.range.upperBound
            for (key, value) in body.members {
                switch key {
                case "offsetMs", "advanceMs", "at":
                    guard case .number(let number) = value, let milliseconds = Fuzz.wholeNumber(number.text) else {
                        return nil
                    }
                    let range = key == "at" ? 0...span : -span...span
                    guard range.contains(milliseconds) else { return nil }
                    if key == "offsetMs" { offset = milliseconds }
                    if key == "advanceMs" { advance = milliseconds }
                    if key == "at" { at = milliseconds }
                case "freeze", "reset":
                    guard case .bool(let flag) = value else { return nil }
                    if key == "freeze" { freeze = flag } else { reset = flag }
                default:
                    return nil
                }
            }
            if at != nil && freeze != true { return nil }
        }

        func applied(to state: ClockState, wall: Int64) -> ClockState {
            var next = reset ? ClockState(offset: 0, frozen: nil) : state
            if let offset { next.offset = offset }
            if let advance {
                next.offset = clampedSum(next.offset, advance)
                next.frozen = next.frozen.map { clampedSum($0, advance) }
            }
            switch freeze {
            case true?:
                next.frozen = at ?? next.now(wall: wall)
            case false?:
                // An offset named in the same change wins over running on from the frozen time.
                if let frozen = next.frozen, offset == nil { next.offset = clampedSum(frozen, 0 &- wall) }
                next.frozen = nil
            case nil:
                break
            }
            return next
        }
    }

    private static func collectIntegers(_ value: JSONValue?, into integers: inout [Int64]) {
        guard let value, integers.count < 16 else { return }
        switch value {
        case .number(let number): if let integer = number.int64 { integers.append(integer) }
        case .array(let elements): for element in elements { collectIntegers(element, into: &integers) }
        case .object(let object): for member in object.members { collectIntegers(member.value, into: &integers) }
        default: break
        }
    }

    private static func clampedSum(_ left: Int64, _ right: Int64) -> Int64 {
        let (sum, overflow) = left.addingReportingOverflow(right)
        return overflow ? (right > 0 ? .max : .min) : sum
    }

    /// The clock's in-process setters with any Int64, beyond what the route lets through: they clamp into
    /// `MockTime.range` and never trap.
    private static func clockMethods(_ value: Int64) {
        let clock = ServerClock()
        let range = MockTime.range
        let clamp = { (milliseconds: Int64) in min(max(milliseconds, range.lowerBound), range.upperBound) }
        clock.freeze(atMilliseconds: value)
        Fuzz.require(clock.nowMilliseconds() == clamp(value), "freeze(at: \(value)) reads \(clock.nowMilliseconds())")
        Fuzz.require(clock.nowSeconds() == clamp(value) / 1000, "nowSeconds \(clock.nowSeconds()) at \(value)")
        for step in [value, value, Int64.min, value, Int64.max] {
            let frozen = clock.nowMilliseconds()
            clock.advance(byMilliseconds: step)
            Fuzz.require(clock.snapshot().frozen, "advance(\(step)) unfroze the clock")
            Fuzz.require(clock.nowMilliseconds() == clamp(clampedSum(frozen, step)), "advance(\(step)) from \(frozen)")
        }
        clock.setOffset(milliseconds: value)
        Fuzz.require(clock.snapshot().offsetMilliseconds == value, "setOffset(\(value)) on a frozen clock")
        let frozen = clock.nowMilliseconds()
        clock.unfreeze()
        let running = clock.nowMilliseconds()
        Fuzz.require(!clock.snapshot().frozen, "unfreeze left the clock frozen")
        Fuzz.require(running >= frozen && running - frozen < 10_000, "unfrozen at \(frozen), reads \(running)")
        for step in [value, value, Int64.min, Int64.max, value] {
            clock.setOffset(milliseconds: step)
            Fuzz.require(range.contains(clock.nowMilliseconds()), "setOffset(\(step)) reads outside the range")
            clock.advance(byMilliseconds: step)
            Fuzz.require(range.contains(clock.nowMilliseconds()), "advance(\(step)) reads outside the range")
            _ = clock.nowSeconds()
        }
        clock.freeze()
        clock.unfreeze()
        Fuzz.require(range.contains(clock.snapshot().now), "snapshot outside the range")
        clock.reset()
        Fuzz.require(clock.snapshot().offsetMilliseconds == 0 && !clock.snapshot().frozen, "reset")
    }

    // MARK: - Workspaces

    /// The key ids of the repository's `keys/` directory.
    static let keyIDs: Set<String> = [
        "acme-market-2026-10", "acme-market-2027-01", "acme-market-grants-2026-10", "acme-market-grants-2027-01",
        "hostile-2026-10", "hostile-grants-2026-10",
    ]

    static func workspace(_ body: [UInt8], key: String) {
        let outcome = WorkspaceValidator.validate(body, expectedKey: key, keyIDs: keyIDs)
        guard let document = try? JSONParser().parse(body) else {
            Fuzz.require(outcome.workspace == nil && outcome.problems.count == 1 && outcome.hasErrors, "not JSON")
            return
        }
        Fuzz.require(outcome.workspace != nil || outcome.hasErrors, "no workspace, and no error to say why")
        for problem in outcome.problems {
            Fuzz.require(!problem.reason.isEmpty, "a problem without a reason at \(problem.path)")
            _ = problem.description
            Fuzz.require(
                anchored(problem.path, in: document) || anchored(problem.path, in: document["config"]),
                "a problem at \(problem.path), which is not in the document: \(problem.reason)")
        }
        if case .array(let secrets)? = document["secretKeys"] {
            for (index, secret) in secrets.enumerated() {
                guard case .string(let text) = secret, text.utf8.count >= 12 else { continue }
                for problem in outcome.problems where problem.path.components.first == .key("secretKeys") {
                    Fuzz.require(!problem.reason.contains(text), "secretKeys[\(index)] quoted in \(problem)")
                }
            }
        }
        guard let workspace = outcome.workspace else { return }
        Fuzz.require(
            IdentifierKind.workspaceKey.isValid(workspace.key), "served as \(workspace.key), not a workspace key")
        if !outcome.hasErrors { checkValid(workspace, document: document, key: key) }
        checkPayload(workspace)
    }

    /// The path, or its parent (for a member that is missing), exists in `root`.
    private static func anchored(_ path: JSONPath, in root: JSONValue?) -> Bool {
        guard let root else { return false }
        if root.value(at: path) != nil { return true }
        return root.value(at: JSONPath(Array(path.components.dropLast()))) != nil
    }

    private static func checkValid(_ workspace: Workspace, document: JSONValue, key: String) {
        Fuzz.require(workspace.key == key, "served as \(workspace.key) under the URL key \(key)")
        Fuzz.require(!workspace.secretKeys.isEmpty, "no secret keys")
        Fuzz.require(Set(workspace.secretKeys).count == workspace.secretKeys.count, "repeated secret keys")
        for secret in workspace.secretKeys {
            Fuzz.require((8...200).contains(secret.utf8.count), "a secret of \(secret.utf8.count) bytes")
            Fuzz.require(secret.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "a secret with a space or non-ASCII")
        }
        for list in [workspace.configKeyIDs, workspace.grantKeyIDs] {
            Fuzz.require(!list.isEmpty && list.allSatisfy(keyIDs.contains), "signing keys \(list)")
            Fuzz.require(Set(list).count == list.count, "a key listed twice: \(list)")
        }
        Fuzz.require((60...604_800).contains(workspace.grantTTLSeconds), "grant TTL \(workspace.grantTTLSeconds)")
        if let holdout = workspace.holdout {
            Fuzz.require((0...10_000).contains(holdout.weight) && !holdout.salt.isEmpty, "holdout \(holdout)")
        }
        Fuzz.require(Set(workspace.campaigns.map(\.id)).count == workspace.campaigns.count, "campaign ids repeat")
        for campaign in workspace.campaigns {
            let at = "campaign \(campaign.id)"
            Fuzz.require(IdentifierKind.campaignID.isValid(campaign.id), "\(at): not an id")
            Fuzz.require(campaign.placement.isKnown, "\(at): placement")
            Fuzz.require(!campaign.salt.isEmpty, "\(at): an empty salt")
            if let startsAt = campaign.startsAt, let endsAt = campaign.endsAt {
                Fuzz.require(startsAt < endsAt, "\(at): starts at \(startsAt), after its end \(endsAt)")
            }
            for bound in [campaign.startsAt, campaign.endsAt].compactMap({ $0 }) {
                Fuzz.require((0...32_503_680_000).contains(bound), "\(at): schedule bound \(bound)")
            }
            Fuzz.require(!campaign.variants.isEmpty, "\(at): no variants")
            Fuzz.require(Set(campaign.variants.map(\.id)).count == campaign.variants.count, "\(at): variant ids")
            Fuzz.require(campaign.variants.allSatisfy { (0...10_000).contains($0.weight) }, "\(at): a weight")
            Fuzz.require(campaign.variants.reduce(0) { $0 + $1.weight } == 10_000, "\(at): weights do not sum")
            if campaign.assignmentUnit == .install {
                Fuzz.require(campaign.variants.allSatisfy { $0.treatment == nil }, "\(at): an offer by install")
            }
        }
        for campaign in workspace.campaigns.prefix(4) {
            Fuzz.require(Assignment.variant(of: campaign, for: "install-1") != nil, "no variant for a unit")
        }
        let config = workspace.config
        Fuzz.require(config["demoMode"]?.boolValue == workspace.demoMode, "demoMode not written in")
        let cap = config["settings"]?["maxComponentsPerScreen"]?.int64Value ?? 0
        Fuzz.require((1...10).contains(cap), "maxComponentsPerScreen \(cap)")
        Fuzz.require(config["settings"]?["imageHosts"]?.arrayValue != nil, "imageHosts not written in")
        Fuzz.require(config["campaigns"]?.arrayValue != nil && config["previews"]?.arrayValue != nil, "defaults")
    }

    private static func checkPayload(_ workspace: Workspace) {
        let payload = ConfigurationSigner.payload(for: workspace, revision: 7, issuedAt: 1_764_478_800)
        let parsed: JSONValue
        do {
            parsed = try JSONParser().parse(payload)
        } catch {
            Fuzz.fail("the signed payload is not JSON the parser reads (\(error))")
        }
        let server: [(String, JSONValue)] = [
            ("schemaVersion", 1), ("workspaceKey", .string(workspace.key)), ("revision", 7),
            ("issuedAt", 1_764_478_800),
        ]
        for (field, value) in server {
            Fuzz.require(
                parsed[field] == value,
                "the payload's \(field) is \(Fuzz.show(parsed[field] ?? .null)), not the server's \(Fuzz.show(value))")
        }
        for member in workspace.config.members where !server.contains(where: { $0.0 == member.key }) {
            Fuzz.require(parsed[member.key] == member.value, "the payload lost config.\(member.key)")
        }
        Fuzz.require(
            ConfigurationSigner.contentHash(for: workspace, keys: KeyStore(directory: "", keys: [:])).count == 32,
            "contentHash is not SHA-256")
    }
}
