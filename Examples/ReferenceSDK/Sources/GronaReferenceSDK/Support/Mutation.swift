/// The behaviours the reference SDK can break on purpose, one at a time (`--mutation NAME`), so that the
/// conformance catalogue can show it catches a broken SDK (issue 30: a mutation score of 100 %).
///
/// Declared once: the service's `--list-mutations` walks `allCases`, the README lists them, and each case is
/// checked at the single place its behaviour lives (search for the case name). Each breaks exactly one
/// behaviour of "What the catalogue expects of an SDK" (docs/conformance/service-protocol.md).
public enum Mutation: String, Sendable, CaseIterable {
    // Configuration
    case skipSignatureVerification = "skip-signature-verification"
    case acceptAnyKid = "accept-any-kid"
    case acceptWrongAlgorithm = "accept-wrong-algorithm"
    case dropNextKey = "drop-next-key"
    case acceptRollback = "accept-rollback"
    case acceptOtherWorkspace = "accept-other-workspace"
    case noETag = "no-etag"
    case ignoreBundledConfiguration = "ignore-bundled-configuration"
    case noPolling = "no-polling"
    case crashOnUnknownType = "crash-on-unknown-type"
    // Kills and other changes
    case killOnNextVisit = "kill-on-next-visit"
    case changesApplyAtOnce = "changes-apply-at-once"
    // Deciding
    case ignoreSchedule = "ignore-schedule"
    case ignoreTargeting = "ignore-targeting"
    case ignorePerScreenCap = "ignore-per-screen-cap"
    case wrongPriorityOrder = "wrong-priority-order"
    case showInControlOrHoldout = "show-in-control-or-holdout"
    case ignoreHoldout = "ignore-holdout"
    case ignoreImageHosts = "ignore-image-hosts"
    case offersWithoutGrant = "offers-without-grant"
    case ignorePreview = "ignore-preview"
    // Events
    case repeatExposure = "repeat-exposure"
    case noDemoFlag = "no-demo-flag"
    case actionWithoutServed = "action-without-served"
    // Delivery
    case ignoreRetryAfter = "ignore-retry-after"
    case noBackoff = "no-backoff"
    case newEventIDsOnRetry = "new-event-ids-on-retry"
    case resendAfter200 = "resend-after-200"
    case offlineDropsBacklog = "offline-drops-backlog"
    case sentAtFromWallClock = "sent-at-from-wall-clock"
    case noGzip = "no-gzip"
    // Grants
    case skipGrantVerification = "skip-grant-verification"
    case noGrantRefresh = "no-grant-refresh"
    case keepGrantsOnIdentify = "keep-grants-on-identify"

    /// One line on what the mutant does wrong, for `--list-mutations --verbose` and the README.
    public var summary: String {
        switch self {
        case .skipSignatureVerification: "uses a configuration without checking any signature"
        case .acceptAnyKid: "trusts a signature whose kid is not among configKeys, unchecked"
        case .acceptWrongAlgorithm: "does not require alg ES256 in the configuration's protected header"
        case .dropNextKey: "verifies with the first configKey only, so a rotation to the next key is refused"
        case .acceptRollback: "adopts a configuration whose revision is lower than the one in use"
        case .acceptOtherWorkspace: "adopts a configuration whose payload names another workspace"
        case .noETag: "never sends If-None-Match"
        case .ignoreBundledConfiguration: "does not load the bundled configuration"
        case .noPolling: "asks for the configuration at creation and on foreground only, never every pollIntervalMs"
        case .crashOnUnknownType: "refuses the whole configuration when a component or decision type is unknown"
        case .killOnNextVisit: "applies a kill at the next visit, leaving killed content on screen"
        case .changesApplyAtOnce: "applies every configuration change to the open visit, not at the next one"
        case .ignoreSchedule: "shows campaigns outside their schedule"
        case .ignoreTargeting: "shows campaigns whatever their targeting"
        case .ignorePerScreenCap: "fills every placement, past maxComponentsPerScreen"
        case .wrongPriorityOrder: "picks the lowest priority first"
        case .showInControlOrHoldout: "shows content (and logs served and exposure) in the control arm"
        case .ignoreHoldout: "never puts a unit in the workspace holdout"
        case .ignoreImageHosts: "shows images from hosts not in imageHosts"
        case .offersWithoutGrant: "shows offers without a verified, matching grant"
        case .ignorePreview: "ignores the preview pin"
        case .repeatExposure: "logs exposure every time the anchor becomes visible"
        case .noDemoFlag: "never sets demo on events"
        case .actionWithoutServed: "logs action and dismiss on a control or holdout slot, where nothing was served"
        case .ignoreRetryAfter: "retries 429 and 503 on its backoff, before Retry-After has passed"
        case .noBackoff: "retries a failed batch a millisecond later, not after 1 s doubling to 60 s"
        case .newEventIDsOnRetry: "gives the events of a retried batch new eventIDs"
        case .resendAfter200: "sends a batch once more after it was answered 200"
        case .offlineDropsBacklog: "drops the events queued while offline when the network comes back"
        case .sentAtFromWallClock: "stamps sentAt from the wall clock, not the SDK's clock"
        case .noGzip: "sends event batches uncompressed even when gzip is asked for"
        case .skipGrantVerification: "keeps grants without checking their signature or claims"
        case .noGrantRefresh: "never fetches grants again before they expire"
        case .keepGrantsOnIdentify: "keeps the previous customer's grants on identify"
        }
    }
}
