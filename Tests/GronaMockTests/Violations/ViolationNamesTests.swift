import GronaMock
import Testing

/// The violation check reads the stored type, arm and placement into their vocabularies; a name it does not
/// know (stored by a newer instance sharing the database) is judged as a name that matches nothing, and
/// named as it was stored.
@Suite("SDK contract checks of names this version does not know")
struct ViolationNamesTests {
    @Test("an unknown event type, arm or placement is named as stored in its violation")
    func unknownNamesInMessages() throws {
        var stream = ViolationStream.correct()
        let install = ViolationUnits.install(banner: true)
        let impression = stream.add("impression", install: install, campaign: "spring-sale", visit: "v-9")
        let shadow = stream.add("exposure", install: install, arm: "shadow", visit: "v-10")
        let middle = stream.add("eligible", install: install, placement: "home_middle", visit: "v-11")
        let violations = try ViolationsCheckerTests.check(stream)
        #expect(violations.map(\.rule) == [.unknownCampaignOrVariant, .wrongAssignment, .wrongPlacement])
        #expect(violations.map(\.events) == [[impression], [shadow], [middle]])
        #expect(
            violations.map(\.message) == [
                "An impression (sequence \(impression)) names campaign \"spring-sale\", which is not in the "
                    + "configuration.",
                "An exposure (sequence \(shadow)) in the shadow arm, but variant \"banner\" is a treatment.",
                "An eligible (sequence \(middle)) on placement home_middle, but campaign \"home-hero\" is on home_top.",
            ])
    }

    @Test("known names still decide the rules: an exposure in the holdout arm of a unit that is not held out")
    func knownArmIsCompared() throws {
        var stream = ViolationStream.correct()
        let install = ViolationUnits.install(banner: true)
        let event = stream.add("exposure", install: install, arm: "holdout", visit: "v-12")
        let violations = try ViolationsCheckerTests.check(stream)
        #expect(violations.map(\.rule) == [.shownInControlOrHoldout, .wrongAssignment])
        #expect(violations.allSatisfy { $0.events == [event] })
    }
}
