import GronaMockJSON

/// One conformance test as a scenario file describes it (docs/conformance.md): the workspace the runner serves
/// for it, the SDK client the test service creates, the steps that drive both, the triggers that react to what
/// the SDK sends, and what must hold at the end.
package struct Scenario: Sendable {
    /// `[a-z0-9][a-z0-9-]*`; the test's name is `area/name`.
    package let name: String
    package let area: String
    package let description: String
    /// The capabilities the test service must list (`GET /`); a scenario that needs one it lacks is skipped.
    package let requires: [Capability]
    /// An RFC 7386 merge patch over the runner's base workspace (`ScenarioWorkspace.base`).
    package let workspace: JSONValue?
    /// Serve the workspace even with content errors (an unknown component type, an image host not listed).
    package let allowInvalidWorkspace: Bool
    package let client: ClientSettings
    /// Fault rules in place before the client is created (its first configuration request meets them).
    package let faults: [JSONValue]
    /// How far the mock's clock runs ahead of the SDK's (negative: behind), for clock-skew scenarios.
    package let clockSkewMs: Int64
    package let steps: [Step]
    package let triggers: [Trigger]
    package let expectations: [Expectation]
    /// Where it was read from: a file path, or `catalogue:<file>` for the built-in catalogue.
    package let source: String

    /// `area/name`, what `--run` and `--skip` match and reports print.
    package var testName: String { "\(area)/\(name)" }
}

/// What a test service can do (docs/conformance/service-protocol.md, "Capabilities").
package enum Capability: String, Sendable, CaseIterable {
    case configuration
    case bundledConfiguration = "bundled-configuration"
    case components, decisions, events, gzip, offline, lifecycle, grants, preview, purchase
}

/// The client options a scenario sets; what it leaves out the runner fills in (docs/conformance.md).
package struct ClientSettings: Sendable {
    /// Key ids the client pins, resolved to their public keys by the runner; nil: the runner's current and next.
    package var configKeys: [String]?
    package var grantKeys: [String]?
    package var bundle: BundledConfiguration?
    package var installID = "install-0001"
    package var customerID: String?
    package var previewToken: String?
    /// `events`, `configuration`, `app` and any other option object, merged over the runner's defaults.
    package var options: JSONObject = [:]
    package var startMs: Int64 = ClientSettings.defaultStartMs

    /// 2027-01-15T08:00:00Z: a multiple of every grant window a scenario uses, so grant expiries are round.
    package static let defaultStartMs: Int64 = 1_800_000_000_000

    package init() {}
}

/// The bundled configuration a client starts with.
package enum BundledConfiguration: Sendable {
    /// The document served when the client is created.
    case served
    /// Another document: the workspace patched with `patch` (signed, served once and replaced before the test's
    /// own), optionally under another workspace key, optionally with its signatures broken, optionally signed
    /// again by the runner with a revision `revisionAhead` above the one the test's workspace is served at (a
    /// rollback to refuse: the network's document is then the older one).
    case other(patch: JSONValue, otherWorkspace: Bool, tampered: Bool, revisionAhead: Int64?)
}
