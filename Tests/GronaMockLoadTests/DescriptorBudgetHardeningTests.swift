import Testing

@testable import GronaMockLoad

/// `--max-in-flight` beyond the process's file descriptors: the connections it could not open counted as
/// connect failures, the service's fault in the report. The run now makes room first, or is not made.
@Suite struct DescriptorBudgetHardeningTests {
    @Test(arguments: [
        (256, UInt64(1024), UInt64(4096), DescriptorBudget.Plan.fits),
        (1000, 1024, 4096, .raise(to: 1064)),
        (100_000, 1024, 20_000, .tooFew(limit: 20_000)),
        (Int.max, 1024, .max, .raise(to: UInt64(Int.max) + 64)),
        (Int.max, 1024, UInt64(Int.max), .tooFew(limit: UInt64(Int.max))),
    ])
    func thePlanForTheConnections(connections: Int, soft: UInt64, hard: UInt64, plan: DescriptorBudget.Plan) {
        #expect(DescriptorBudget.plan(connections: connections, soft: soft, hard: hard) == plan)
    }

    /// More connections than any process may open: the run is refused before its first request, with a
    /// sentence that names the option and the limit.
    @Test func aRunThatCannotOpenItsConnectionsIsNotMade() throws {
        let service = try HostileService { _ in HostileService.response(404, "{}") }
        defer { service.stop() }
        var settings = service.settings(tag: "fd")
        settings.maxInFlight = 1 << 40
        #expect {
            _ = try FleetRunner(settings: settings)
        } throws: { error in
            "\(error)".contains("--max-in-flight") && "\(error)".contains("ulimit -n")
        }
    }
}
