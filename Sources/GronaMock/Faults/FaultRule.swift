import GronaMockJSON

/// One injected fault rule (contract §8): what it does, which requests it targets, how often it fires, and
/// what it has done so far.
///
/// A rule fires for the next `count` requests it acts on, or with `probability` drawn from a SplitMix64
/// seeded with `seed` (the same seed fires for the same requests, so a run can be repeated exactly), or both:
/// with that probability, at most `count` times. A rule with a `workspace` looks only at that workspace's
/// requests; one without looks at every workspace's.
package struct FaultRule: Sendable {
    /// The requests a rule looks at.
    package enum Target: Sendable, Equatable {
        case all
        case endpoint(FaultEngine.Endpoint)

        package var name: String {
            switch self {
            case .all: "all"
            case .endpoint(let endpoint): endpoint.rawValue
            }
        }

        package func matches(_ endpoint: FaultEngine.Endpoint) -> Bool {
            self == .all || self == .endpoint(endpoint)
        }
    }

    /// What every rule may take besides its target and kind, whatever its kind (the dashboard's form offers
    /// them through `DashboardVocabulary`).
    static let commonParameters = ["count", "probability", "seed"]
    static let commonFields = ["endpoint", "workspace", "kind"] + commonParameters
    static let maxDelayMilliseconds = 600_000
    static let maxRetryAfterSeconds = 86_400

    package var id = ""
    package let target: Target
    /// The workspace whose requests the rule looks at; nil for every workspace. It need not be served yet, so
    /// that a test can add its rule before it clones the workspace.
    package let workspace: String?
    package let kind: FaultKind
    let action: FaultAction
    /// The kind's parameters as they are applied (defaults filled in), for listing.
    let parameters: JSONObject
    let count: Int?
    /// The probability as it was written, so that it lists back exactly.
    let probability: JSONNumber?
    let seed: UInt64?

    private var generator: SplitMix64?
    /// Requests this rule looked at while it could still fire.
    package private(set) var seen = 0
    package private(set) var fired = 0

    var remaining: Int? { count.map { max(0, $0 - fired) } }

    private init(
        target: Target, workspace: String?, kind: FaultKind, action: FaultAction, parameters: JSONObject, count: Int?,
        probability: JSONNumber?, seed: UInt64?
    ) {
        self.target = target
        self.workspace = workspace
        self.kind = kind
        self.action = action
        self.parameters = parameters
        self.count = count
        self.probability = probability
        self.seed = seed
        generator = seed.map { SplitMix64(seed: $0) }
    }

    /// Takes one request of an endpoint (and workspace) the rule targets and says whether the rule fires for it.
    ///
    /// A live rule with a probability draws once for every request it sees, even one that an earlier rule
    /// already claimed (`canFire` false), so its sequence of draws depends on its seed alone. An exhausted
    /// rule draws nothing.
    package mutating func take(canFire: Bool) -> Bool {
        if let remaining, remaining == 0 { return false }
        seen += 1
        var hit = true
        if let probability = probability?.double, var generator {
            hit = SplitMix64.fires(generator.next(), probability: probability)
            self.generator = generator
        }
        guard hit && canFire else { return false }
        fired += 1
        return true
    }

    /// Where the seeded generator stands (nil without a probability), so that a rule kept in a database
    /// draws on from where the last request left it, whichever instance takes the next one.
    package var generatorState: UInt64? { generator?.state }

    /// The rule `document` describes (as `parse` reads it), as far as it has gone: for a store that keeps
    /// the document and these counters, not the rule.
    package static func restored(
        from document: JSONValue, id: String, seen: Int, fired: Int, generatorState: UInt64?
    ) throws(InvalidFaultRule) -> FaultRule {
        var rule = try parse(document)
        rule.id = id
        rule.seen = max(0, seen)
        rule.fired = max(0, fired)
        if let generatorState, rule.generator != nil { rule.generator = SplitMix64(seed: generatorState) }
        return rule
    }

    /// The rule as `GET /_mock/faults` lists it.
    package var listing: JSONObject {
        var object: JSONObject = ["id": .string(id), "endpoint": .string(target.name)]
        if let workspace { object.set("workspace", .string(workspace)) }
        object.set("kind", .string(kind.rawValue))
        for member in parameters { object.set(member.key, member.value) }
        if let count { object.set("count", .number(JSONNumber(count))) }
        if let probability { object.set("probability", .number(probability)) }
        if let seed, let number = JSONNumber(text: String(seed)) { object.set("seed", .number(number)) }
        object.set("fired", .number(JSONNumber(fired)))
        object.set("remaining", remaining.map { .number(JSONNumber($0)) } ?? .null)
        object.set("seen", .number(JSONNumber(seen)))
        return object
    }
}

// MARK: - Reading a rule

extension FaultRule {
    /// Reads a rule from `POST /_mock/faults`; every problem is reported at once, each naming its field.
    package static func parse(_ document: JSONValue) throws(InvalidFaultRule) -> FaultRule {
        guard let object = document.objectValue else {
            throw invalid([
                "the rule must be a JSON object like {\"endpoint\": \"config\", \"kind\": \"drop\", \"count\": 1}"
            ])
        }
        var reader = RuleReader(object: object)
        let target = reader.target()
        let workspace = reader.workspace()
        let kind = reader.kind()
        if let kind, let only = kind.onlyEndpoint, let target, target != .endpoint(only) {
            reader.problem(
                "endpoint",
                "kind \"\(kind.rawValue)\" applies only to endpoint \"\(only.rawValue)\", not \"\(target.name)\"")
        }
        let action = kind.flatMap { reader.action(for: $0) }
        let count = reader.integer("count", in: 1...1_000_000_000, required: false)
        let (probability, seed) = reader.probabilityAndSeed()
        if object["count"] == nil && object["probability"] == nil {
            reader.problem(
                "count",
                "give count (fire for the next N requests) or probability with seed (fire at random, repeatably), "
                    + "or both")
        }
        reader.refuseUnknownFields(kind: kind)
        guard reader.problems.isEmpty, let target, let kind, let action else { throw invalid(reader.problems) }
        return FaultRule(
            target: target, workspace: workspace, kind: kind, action: action.0, parameters: action.1, count: count,
            probability: probability, seed: seed)
    }

    private static func invalid(_ problems: [String]) -> InvalidFaultRule { InvalidFaultRule(problems: problems) }
}

/// Reads the fields of one rule, collecting a sentence per problem.
private struct RuleReader {
    let object: JSONObject
    var problems: [String] = []

    mutating func problem(_ field: String, _ reason: String) {
        problems.append("\(field): \(reason)")
    }

    mutating func target() -> FaultRule.Target? {
        let names = (["all"] + FaultEngine.Endpoint.allCases.map(\.rawValue)).map { "\"\($0)\"" }
        guard let value = object["endpoint"] else {
            problem("endpoint", "is required: one of \(names.joined(separator: ", "))")
            return nil
        }
        if let name = value.stringValue {
            if name == "all" { return .all }
            if let endpoint = FaultEngine.Endpoint(rawValue: name) { return .endpoint(endpoint) }
        }
        problem("endpoint", "must be one of \(names.joined(separator: ", ")), not \(shown(value))")
        return nil
    }

    /// The optional workspace key (contract §1's grammar). It need not be served: a test may add its rule
    /// before it clones the workspace.
    mutating func workspace() -> String? {
        guard let value = object["workspace"] else { return nil }
        if let key = value.stringValue, IdentifierKind.workspaceKey.isValid(key) { return key }
        problem(
            "workspace",
            "must be a workspace key ([a-z0-9][a-z0-9-]{0,62}, such as \"run-42\"), not \(shown(value)); "
                + "leave it out for a rule that applies to every workspace")
        return nil
    }

    mutating func kind() -> FaultKind? {
        guard let value = object["kind"] else {
            problem("kind", "is required: one of \(FaultKind.listed)")
            return nil
        }
        if let kind = value.stringValue.flatMap(FaultKind.init(rawValue:)) { return kind }
        problem("kind", "must be one of \(FaultKind.listed), not \(shown(value))")
        return nil
    }

    /// The action of `kind` and its parameters as applied.
    mutating func action(for kind: FaultKind) -> (FaultAction, JSONObject)? {
        switch kind {
        case .status:
            guard let code = integer("status", in: 400...599, required: true) else {
                _ = integer("retryAfterSeconds", in: 0...FaultRule.maxRetryAfterSeconds, required: false)
                return nil
            }
            // Retry-After by default where clients look for it (RFC 9110 §10.2.3, RFC 6585 §4).
            let fallback = code == 429 || code == 503 ? 1 : nil
            let given = integer("retryAfterSeconds", in: 0...FaultRule.maxRetryAfterSeconds, required: false)
            if object["retryAfterSeconds"] != nil && given == nil { return nil }
            let retryAfter = given ?? fallback
            var parameters: JSONObject = ["status": .number(JSONNumber(code))]
            if let retryAfter { parameters.set("retryAfterSeconds", .number(JSONNumber(retryAfter))) }
            return (.status(code: code, retryAfterSeconds: retryAfter), parameters)
        case .delay:
            guard let milliseconds = integer("delayMs", in: 0...FaultRule.maxDelayMilliseconds, required: true) else {
                return nil
            }
            return (.delay(milliseconds: milliseconds), ["delayMs": .number(JSONNumber(milliseconds))])
        case .truncate:
            let afterBytes = integer("afterBytes", in: 0...Int(Int32.max), required: false)
            if object["afterBytes"] != nil && afterBytes == nil { return nil }
            return (
                .truncateBody(afterBytes: afterBytes), afterBytes.map { ["afterBytes": .number(JSONNumber($0))] } ?? [:]
            )
        case .drop: return (.dropConnection, [:])
        case .badSignature, .unknownKeyID, .wrongAlgorithm, .expired, .notYetValid, .otherCustomer, .otherAudience,
            .unsigned:
            return (.tamper(kind), [:])
        }
    }

    /// A whole number in `range`; nil (with a problem when it was given, or is required) otherwise.
    mutating func integer(_ field: String, in range: ClosedRange<Int>, required: Bool) -> Int? {
        guard let value = object[field] else {
            if required {
                problem(field, "is required: a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return nil
        }
        guard let number = value.int64Value, let integer = Int(exactly: number), range.contains(integer) else {
            problem(
                field, "must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(shown(value))")
            return nil
        }
        return integer
    }

    /// `probability` (0 to 1) and its `seed` (0 to 2^64 - 1), which go together.
    mutating func probabilityAndSeed() -> (JSONNumber?, UInt64?) {
        var probability: JSONNumber?
        var seed: UInt64?
        if let value = object["probability"] {
            if let number = value.numberValue, let double = number.double, (0...1).contains(double) {
                probability = number
            } else {
                problem("probability", "must be a number from 0 to 1, not \(shown(value))")
            }
        }
        if let value = object["seed"] {
            if let parsed = value.numberValue?.uint64 {
                seed = parsed
            } else {
                problem("seed", "must be a whole number from 0 to 18446744073709551615, not \(shown(value))")
            }
        }
        if object["probability"] != nil && object["seed"] == nil {
            problem("seed", "is required with probability, so that the same run can be repeated exactly")
        }
        if object["seed"] != nil && object["probability"] == nil {
            problem("seed", "goes with probability; give probability too, or drop seed")
        }
        return (probability, seed)
    }

    /// Fields no kind takes, and the parameters of a kind other than this one.
    mutating func refuseUnknownFields(kind: FaultKind?) {
        let allowed = Set(FaultRule.commonFields + (kind?.parameters ?? []))
        for key in object.keys where !allowed.contains(key) {
            if let owner = FaultKind.allCases.first(where: { $0.parameters.contains(key) }) {
                if kind != nil { problem(key, "applies only to kind \"\(owner.rawValue)\"") }
            } else {
                let known = (FaultRule.commonFields + FaultKind.allCases.flatMap(\.parameters)).joined(
                    separator: ", ")
                problem(Quote.text(key), "is not a field of a fault rule; the fields are \(known)")
            }
        }
    }

    private func shown(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): Quote.text(text)
        case .number(let number): number.text.count > 40 ? "a number" : number.text
        default: value.described
        }
    }
}

/// A fault rule that cannot be read: every problem, each naming its field.
package struct InvalidFaultRule: Error, Equatable {
    package let problems: [String]
}
