import GronaMockJSON

/// One step of a scenario: a command to the test service, an operation on the engine, a check of the traffic
/// so far, or a repetition of steps.
package indirect enum Step: Sendable {
    /// A command of the protocol (`{"command": "visit", …}`), with what its result must show. `advanceTime`
    /// moves the mock's clock first, then the SDK's.
    case command(name: ServiceCommand, body: JSONObject, expect: ResultExpectation?)
    case engine(EngineStep)
    /// Expectations checked at this point (`{"check": [...]}`).
    case check([Expectation])
    case repeated(times: Int, steps: [Step])
}

/// The test service's commands (docs/conformance/service-protocol.md, "Commands"), each with the parameters
/// it takes: a scenario that names another, or a parameter a command does not take, is refused when loaded.
package enum ServiceCommand: String, Sendable, CaseIterable {
    case status, advanceTime, visit, render, onScreen, anchorVisible, act, dismiss, identify, offers, purchase
    case flush, background, foreground, network

    /// Required parameters, then optional ones.
    package var parameters: (required: [String], optional: [String]) {
        switch self {
        case .status, .onScreen, .offers, .flush, .background, .foreground: ([], [])
        case .advanceTime: (["ms"], [])
        case .visit: (["screen"], ["basket"])
        case .render: (["placements"], [])
        case .anchorVisible, .dismiss: (["placement"], ["key"])
        case .act: (["placement", "result"], ["key"])
        case .identify: (["customerID"], [])
        case .purchase: (["orderID", "totalMinor", "productIDs", "treatments"], ["currency"])
        case .network: (["online"], [])
        }
    }

    /// The capability a command needs beyond the basics, so that a scenario using it must require it.
    package var capability: Capability? {
        switch self {
        case .background, .foreground: .lifecycle
        case .network: .offline
        case .identify, .offers: .grants
        case .purchase: .purchase
        default: nil
        }
    }
}

/// An operation on the engine, in a step or a trigger.
package enum EngineStep: Sendable {
    case kill(campaign: String)
    case revive(campaign: String)
    /// The workspace's current document patched (RFC 7386) and served.
    case replace(patch: JSONValue, allowInvalid: Bool)
    case rotate(configKeys: Bool)
    /// A fault rule, scoped to the test's workspace.
    case fault(JSONValue)
    case clearFaults
    /// The mock's clock alone moves (the SDK's does not): skew.
    case skewClock(ms: Int64)

    /// A fault takes effect inside the trigger that adds it, before the SDK's next request; the others
    /// publish on the event stream, which a listener must not do, so they run as the command returns.
    package var isFault: Bool {
        if case .fault = self { true } else { false }
    }
}

/// A trigger: when the SDK has sent `count` things matching `condition`, run `actions` (once).
package struct Trigger: Sendable {
    package enum Condition: Sendable {
        /// Requests answered whose view matches (`RequestView`).
        case request(FieldMatcher)
        /// Events accepted in batches answered 200, one by one.
        case event(FieldMatcher)
    }

    package let condition: Condition
    package let count: Int
    package let actions: [EngineStep]
    /// The trigger as written, for the log.
    package let source: JSONValue
}
