import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

@testable import GronaMock

/// One way to break one rule: applied to the correct stream, it must produce exactly one violation, of
/// `rule`, naming exactly the events `apply` returns.
struct BrokenStreamCase: Sendable, CustomTestStringConvertible {
    var rule: ViolationRule
    var name: String
    var demoMode = false
    var kills: [String: [KillInterval]] = [:]
    var apply: @Sendable (inout ViolationStream) -> [Int64]
    var testDescription: String { "\(rule.rawValue): \(name)" }
}

/// The SDK contract checks of contract §8 as a pure function: events + workspace + kills + grants.
@Suite("SDK contract checks (ViolationsChecker)")
struct ViolationsCheckerTests {
    static let banner = ViolationUnits.install(banner: true)
    static let control = ViolationUnits.install(banner: false)
    static let heldOut = ViolationUnits.install(banner: true, heldOut: true)
    static let offerCustomer = ViolationUnits.customer(offer: true)
    static let otherOfferCustomer = ViolationUnits.customer(offer: true, skip: 1)
    static let t0 = ViolationStream.t0
    /// home-hero killed at t0 + 100 s in revision 4; the correct stream's events are earlier, from revision 3.
    static let homeHeroKilled = ["home-hero": [KillInterval(killedAt: t0 + 100_000, killedRevision: 4)]]

    static func check(
        _ stream: ViolationStream, demoMode: Bool = false, previews: JSONValue? = nil,
        kills: [String: [KillInterval]] = [:], grants: IssuedGrants = .correct
    ) throws -> [Violation] {
        let workspace = try ViolationWorkspace.shop(demoMode: demoMode, previews: previews)
        return ViolationsChecker.check(stream.rows, workspace: workspace, kills: kills, grantIssued: grants.issued)
    }

    // MARK: - Streams from a correct SDK

    @Test("a correct stream has no violation, in and out of demo mode")
    func correctStream() throws {
        for demo in [false, true] {
            let stream = ViolationStream.correct(demo: demo)
            #expect(stream.sent.count == 20)
            let violations = try Self.check(stream, demoMode: demo, kills: Self.homeHeroKilled)
            #expect(violations == [], "demo \(demo)")
        }
    }

    @Test("no violation around a kill and a revival the SDK could not have seen yet, nor after the revival")
    func aroundAKill() throws {
        var stream = ViolationStream.correct()
        let kills = [
            "home-hero": [
                KillInterval(
                    killedAt: Self.t0 + 100_000, killedRevision: 4, revivedAt: Self.t0 + 200_000, revivedRevision: 6)
            ]
        ]
        // Still on revision 3 after the kill: the SDK's configuration has not refreshed yet.
        stream.add("served", install: Self.banner, visit: "v-11", time: Self.t0 + 150_000)
        // No revision, inside the grace.
        stream.configRevision = nil
        stream.add("served", install: Self.banner, visit: "v-12", time: Self.t0 + 104_999)
        // After the revival, by revision and by time.
        stream.add("served", install: Self.banner, visit: "v-13", time: Self.t0 + 200_000)
        stream.configRevision = 6
        stream.add("served", install: Self.banner, visit: "v-14", time: Self.t0 + 160_000)
        #expect(try Self.check(stream, kills: kills) == [])
    }

    @Test(
        "a visit's repeats are all found, with few groups (searched in order) and many (hashed)",
        arguments: [3, VisitLedger.groupsSearchedInOrder - 1, VisitLedger.groupsSearchedInOrder, 40])
    func manyGroupsInAVisit(_ screens: Int) throws {
        var stream = ViolationStream()
        func served(_ screen: Int) -> Int64 {
            stream.add("served", install: Self.banner, screen: ["type": "product", "id": .string("p\(screen)")])
        }
        // Every screen once, then every screen again in reverse, then the first screen a third time: the
        // groups are made before the switch to hashing and found after it.
        let first = (0..<screens).map(served)
        let second = (0..<screens).reversed().map(served).reversed()
        let third = served(0)
        let violations = try Self.check(stream)
        #expect(violations.map(\.rule) == Array(repeating: .repeatedInVisit, count: screens))
        let expected = (0..<screens).map { [first[$0], Array(second)[$0]] + ($0 == 0 ? [third] : []) }
        #expect(violations.map(\.events) == expected)
    }

    @Test("a preview pins its variant, whatever assignment gives")
    func pinnedPreview() throws {
        var stream = ViolationStream.correct()
        stream.add("served", install: Self.control, visit: "v-10", extra: [("preview", "pv_1")])
        stream.add("served", install: Self.control, visit: "v-11", extra: [("preview", true)])
        let previews: JSONValue = [["token": "pv_1", "campaignID": "home-hero", "variantID": "banner"]]
        #expect(try Self.check(stream, previews: previews) == [])
    }

    // MARK: - Each rule broken once

    static let brokenCases: [BrokenStreamCase] = [
        BrokenStreamCase(rule: .repeatedInVisit, name: "a second exposure in a visit") { stream in
            stream.sequences("exposure", visit: "v-1") + [stream.add("exposure", install: banner, visit: "v-1")]
        },
        BrokenStreamCase(rule: .repeatedInVisit, name: "a second eligible in a control visit") { stream in
            let again = stream.add("eligible", install: control, variant: "control", arm: "control", visit: "v-2")
            return stream.sequences("eligible", visit: "v-2").filter { $0 != again } + [again]
        },
        BrokenStreamCase(rule: .shownInControlOrHoldout, name: "an exposure in the control arm") { stream in
            [stream.add("exposure", install: control, variant: "control", arm: "control", visit: "v-2")]
        },
        BrokenStreamCase(rule: .shownInControlOrHoldout, name: "a served in the holdout arm") { stream in
            [stream.add("served", install: heldOut, arm: "holdout", visit: "v-3")]
        },
        BrokenStreamCase(rule: .actionWithoutServed, name: "an action in a visit with no served") { stream in
            stream.add("eligible", install: banner, visit: "v-9")
            return [stream.add("action", install: banner, visit: "v-9")]
        },
        BrokenStreamCase(rule: .actionWithoutServed, name: "a dismiss in a control visit") { stream in
            [stream.add("dismiss", install: control, variant: "control", arm: "control", visit: "v-2")]
        },
        BrokenStreamCase(rule: .unknownCampaignOrVariant, name: "an unknown campaign") { stream in
            [stream.add("eligible", install: banner, campaign: "spring-sale", visit: "v-9")]
        },
        BrokenStreamCase(rule: .unknownCampaignOrVariant, name: "an unknown variant") { stream in
            [stream.add("eligible", install: banner, variant: "spring", visit: "v-9")]
        },
        BrokenStreamCase(rule: .unknownCampaignOrVariant, name: "a purchase claiming an unknown variant") { stream in
            [stream.purchase(install: banner, customer: offerCustomer, variant: "twenty-off")]
        },
        BrokenStreamCase(rule: .wrongPlacement, name: "home-hero on cart_top") { stream in
            [stream.add("eligible", install: banner, placement: "cart_top", screen: ["type": "cart"], visit: "v-9")]
        },
        BrokenStreamCase(rule: .wrongAssignment, name: "the banner for an install assigned control") { stream in
            [stream.add("eligible", install: control, visit: "v-9")]
        },
        BrokenStreamCase(rule: .wrongAssignment, name: "the control arm for an install in the holdout") { stream in
            [stream.add("eligible", install: heldOut, variant: "control", arm: "control", visit: "v-9")]
        },
        BrokenStreamCase(rule: .wrongAssignment, name: "the holdout arm for an install not held out") { stream in
            [stream.add("eligible", install: banner, arm: "holdout", visit: "v-9")]
        },
        BrokenStreamCase(rule: .wrongAssignment, name: "the control arm with the banner variant") { stream in
            [stream.add("eligible", install: banner, arm: "control", visit: "v-9")]
        },
        BrokenStreamCase(rule: .wrongAssignment, name: "a customer-unit campaign without customerID") { stream in
            [
                stream.add(
                    "eligible", install: banner, campaign: "checkout-10-off", variant: "control", arm: "control",
                    placement: "checkout_above_pay", screen: ["type": "checkout"], visit: "v-9")
            ]
        },
        BrokenStreamCase(rule: .wrongAssignment, name: "a preview token the configuration does not pin") { stream in
            [stream.add("eligible", install: control, visit: "v-9", extra: [("preview", "pv_nope")])]
        },
        BrokenStreamCase(
            rule: .eventAfterKill, name: "an action from the revision that killed it", kills: homeHeroKilled
        ) {
            stream in
            stream.configRevision = 4
            return [stream.add("action", install: banner, visit: "v-1")]
        },
        BrokenStreamCase(
            rule: .eventAfterKill, name: "an action without revision, 5 s after the kill", kills: homeHeroKilled
        ) { stream in
            stream.configRevision = nil
            return [stream.add("action", install: banner, visit: "v-1", time: t0 + 105_000)]
        },
        BrokenStreamCase(rule: .offerWithoutGrant, name: "an offer served to a customer without a grant") { stream in
            [
                stream.add(
                    "served", install: banner, customer: otherOfferCustomer, campaign: "checkout-10-off",
                    variant: "ten-off", placement: "checkout_above_pay", screen: ["type": "checkout"], visit: "v-9")
            ]
        },
        BrokenStreamCase(rule: .offerWithoutGrant, name: "a treatment claimed without a grant") { stream in
            [stream.purchase(install: banner, customer: otherOfferCustomer)]
        },
        BrokenStreamCase(rule: .demoMismatch, name: "demo true outside demo mode") { stream in
            [stream.add("eligible", install: banner, visit: "v-9", extra: [("demo", true)])]
        },
        BrokenStreamCase(rule: .demoMismatch, name: "demo missing in demo mode", demoMode: true) { stream in
            stream.demo = nil
            return [stream.add("eligible", install: banner, visit: "v-9")]
        },
        BrokenStreamCase(rule: .demoMismatch, name: "a purchase with demo false in demo mode", demoMode: true) {
            stream in
            stream.demo = false
            return [stream.purchase(install: banner, customer: offerCustomer)]
        },
    ]

    @Test("a stream that breaks one rule once has exactly that violation", arguments: brokenCases)
    func brokenOnce(_ row: BrokenStreamCase) throws {
        var stream = ViolationStream.correct(demo: row.demoMode)
        let expected = row.apply(&stream)
        let violations = try Self.check(stream, demoMode: row.demoMode, kills: row.kills)
        #expect(violations.count == 1, "\(violations)")
        let violation = try #require(violations.first)
        #expect(violation.rule == row.rule)
        #expect(violation.events == expected)
        #expect(violation.eventIDs == expected.map { "e-\($0)" })
        #expect(violation.message.hasSuffix("."))
        for sequence in expected { #expect(violation.message.contains(String(sequence))) }
    }

    @Test("every rule has a stream that breaks it")
    func everyRuleCovered() {
        #expect(Set(Self.brokenCases.map(\.rule)) == Set(ViolationRule.allCases))
        #expect(ViolationRule.allCases.count == 9)
    }

    @Test("violations come in the order of their first event, each rule with its id")
    func orderAndShape() throws {
        var stream = ViolationStream.correct()
        let late = stream.add("eligible", install: Self.banner, campaign: "spring-sale", visit: "v-9")
        let early = stream.sequences("exposure", visit: "v-1")[0]
        stream.add("exposure", install: Self.banner, visit: "v-1")
        let violations = try Self.check(stream)
        #expect(violations.map(\.rule) == [.repeatedInVisit, .unknownCampaignOrVariant])
        #expect(violations.map { $0.events[0] } == [early, late])
        let json = try #require(violations.last?.json)
        #expect(json["rule"] == "unknown_campaign_or_variant")
        #expect(json["events"] == .array([.number(JSONNumber(late))]))
        #expect(json["eventIDs"] == .array([.string("e-\(late)")]))
        #expect(json["message"]?.stringValue?.contains("spring-sale") == true)
    }
}
