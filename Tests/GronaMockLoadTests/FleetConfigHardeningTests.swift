import GronaMock
import Testing

@testable import GronaMockLoad

/// Configurations that verify but whose payload is absurd: a service under test signs what it likes, and the
/// fleet must neither trap nor grow with it.
@Suite struct FleetConfigHardeningTests {
    /// One campaign on every placement, its variants `zeroWeighted` of weight 0 and then one of 10,000: every
    /// unit is assigned the last variant, whose index is `zeroWeighted`.
    static func config(zeroWeighted: Int, holdout: Holdout? = nil) -> FleetConfig {
        var variants = (0..<zeroWeighted).map {
            FleetVariant(id: "v\($0)", weight: 0, content: .decision(.rail, action: nil, substitutes: [:]))
        }
        variants.append(
            FleetVariant(id: "last", weight: 10_000, content: .decision(.rail, action: nil, substitutes: [:])))
        let campaigns = Placement.allCases.map { placement in
            FleetCampaign(id: "c-\(placement.rawValue)", placement: placement, salt: "s", variants: variants)
        }
        return FleetConfig(revision: 1, demoMode: false, holdout: holdout, campaigns: campaigns)
    }

    static func visits(_ config: FleetConfig, count: Int) -> (logged: Int, install: InstallState) {
        let simulator = VisitSimulator(
            encoder: EventEncoder(runTag: "t"), catalogue: .standard, offersEnabled: false)
        var install = InstallState()
        var random = SplitMix64(seed: 3)
        var logged = 0
        for visit in 0..<count {
            logged += simulator.visit(
                &install, index: 0, config: config, timestamp: 1_800_000_000_000 + Int64(visit), random: &random)
        }
        return (logged, install)
    }

    /// A variant index beyond Int16 (a campaign with 40,000 variants of weight 0 first) used to trap the
    /// assignment cache; the shopper is assigned that variant and logs its events.
    @Test func aVariantIndexBeyondInt16IsAssignedWithoutTrapping() {
        let (logged, install) = Self.visits(Self.config(zeroWeighted: 40_000), count: 20)
        #expect(logged > 0)
        #expect(install.pending.count > 0)
        let text = String(decoding: install.pending, as: UTF8.self)
        #expect(text.contains("\"variantID\":\"last\""))
    }

    /// The same in the holdout, where the cache stored `-3 - variant`.
    @Test func aHeldOutVariantIndexBeyondInt16IsAssignedWithoutTrapping() {
        let (logged, install) = Self.visits(
            Self.config(zeroWeighted: 32_766, holdout: Holdout(salt: "h", weight: 10_000)), count: 20)
        #expect(logged > 0)
        let text = String(decoding: install.pending, as: UTF8.self)
        #expect(text.contains("\"arm\":\"holdout\""))
        #expect(text.contains("\"variantID\":\"last\""))
    }

    /// A configuration of 50,000 campaigns costs an install what it meets, not a slot per campaign: a million
    /// installs would otherwise hold 50,000 × 1,000,000 cached assignments.
    @Test func anInstallCachesOnlyTheCampaignsItMeets() {
        let many = (0..<50_000).map { index in
            FleetCampaign(
                id: "c\(index)", placement: Placement.allCases[index % Placement.allCases.count], salt: "s",
                variants: [
                    FleetVariant(id: "a", weight: 10_000, content: .decision(.rail, action: nil, substitutes: [:]))
                ])
        }
        let config = FleetConfig(revision: 7, demoMode: false, holdout: nil, campaigns: many)
        let (logged, install) = Self.visits(config, count: 10)
        #expect(logged > 0)
        #expect(install.assignments.count <= 10 * Placement.allCases.count)
    }
}

/// The open-model schedule at the extremes the options allow.
@Suite struct ArrivalScheduleHardeningTests {
    /// `--ramp-from 0.19999999998 --rate 1e-300 --ramp 10s --duration 20s`: the ramp's area falls a hair short of
    /// one visit, the count's tolerance still schedules it, and the hold phase put it 10^290 s later, which
    /// trapped converting to nanoseconds. Every scheduled visit is due within the run.
    @Test func aVisitCountedByTheToleranceIsDueWithinTheRun() throws {
        let schedule = ArrivalSchedule(rate: 1e-300, rampFrom: 0.19999999998, rampSeconds: 10, durationSeconds: 20)
        #expect(schedule.totalVisits == 1)
        let due = try #require(schedule.dueTime(ofVisit: 1))
        #expect(due.isFinite && due >= 0 && due <= 20)
        var clock = VisitClock(schedule: schedule, start: 1_000)
        #expect(clock.nextDueTime.map { $0 <= 1_000 + 20_000_000_000 } == true)
        #expect(clock.nextVisit(now: .max) != nil)
        #expect(clock.nextVisit(now: .max) == nil)
    }

    /// The smallest rate the options take, with the longest run: no visit, no trap.
    @Test(arguments: [(1e-300, 0.0, 0.0), (0.0001, 0.0, 86_400.0), (1_000_000, 1_000_000, 86_400)])
    func extremeRatesScheduleFinitely(rate: Double, rampFrom: Double, ramp: Double) {
        let schedule = ArrivalSchedule(rate: rate, rampFrom: rampFrom, rampSeconds: ramp, durationSeconds: 86_400)
        for visit in [1, 2, schedule.totalVisits - 1, schedule.totalVisits] where visit >= 1 {
            let due = schedule.dueTime(ofVisit: visit)
            #expect(due.map { $0.isFinite && $0 >= 0 && $0 <= 86_400 } ?? true)
        }
        _ = VisitClock(schedule: schedule, start: 0)
    }
}

/// A service may change its configuration without bumping the revision: the assignment an install cached for
/// the old one must not index the new one's variants.
@Suite struct ReusedRevisionHardeningTests {
    static func campaigns(variants: Int) -> [FleetCampaign] {
        Placement.allCases.map { placement in
            FleetCampaign(
                id: "c-\(placement.rawValue)", placement: placement, salt: "s",
                variants: (0..<variants).map {
                    FleetVariant(
                        id: "v\($0)", weight: $0 == variants - 1 ? 10_000 : 0,
                        content: .decision(.rail, action: nil, substitutes: [:]))
                })
        }
    }

    @Test func aSecondConfigurationWithTheSameRevisionAndFewerVariantsIsReadAfresh() {
        let simulator = VisitSimulator(encoder: EventEncoder(runTag: "t"), catalogue: .standard, offersEnabled: false)
        let first = FleetConfig(revision: 5, demoMode: false, holdout: nil, campaigns: Self.campaigns(variants: 3))
        let second = FleetConfig(revision: 5, demoMode: false, holdout: nil, campaigns: Self.campaigns(variants: 1))
        var install = InstallState()
        var random = SplitMix64(seed: 9)
        for visit in 0..<30 {
            _ = simulator.visit(
                &install, index: 0, config: first, timestamp: 1_800_000_000_000 + Int64(visit), random: &random)
        }
        install.pending.removeAll()
        var logged = 0
        for visit in 0..<30 {
            logged += simulator.visit(
                &install, index: 0, config: second, timestamp: 1_800_000_001_000 + Int64(visit), random: &random)
        }
        #expect(logged > 0)
        let text = String(decoding: install.pending, as: UTF8.self)
        #expect(!text.contains("\"variantID\":\"v2\""))
    }
}
