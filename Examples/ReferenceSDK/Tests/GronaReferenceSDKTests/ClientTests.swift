import Foundation
import GronaReferenceSDK
import Testing

/// The client against an in-memory platform: what the catalogue checks, without sockets or real time.
@Suite("Client behaviour")
struct ClientTests {
    static let startMs: Int64 = 1_796_000_000_000
    let test = TestPlatform()
    let platform = FakePlatform()
    let grantsSource: FakeGrantsSource

    init() {
        grantsSource = FakeGrantsSource(platform: platform)
    }

    func client(
        bundled: [UInt8]? = nil, customerID: String? = nil, batch: Int = 20, ageMs: Int64 = 10_000,
        mutation: Mutation? = nil
    ) async throws -> GronaClient {
        let options = SDKOptions(
            baseURL: URL(string: "http://platform.test")!, workspaceKey: test.workspaceKey,
            configKeys: try test.configKeys, grantKeys: try test.grantKeys, bundledConfiguration: bundled,
            installID: "install-0001", customerID: customerID,
            events: .init(maxBatchSize: batch, maxAgeMs: ageMs, gzip: true, maxQueued: 1000), pollIntervalMs: 60_000,
            startMs: Self.startMs, mutation: mutation)
        return await GronaClient.start(
            options: options, transport: platform, grantsSource: grantsSource)
    }

    func serve(revision: Int64, _ campaigns: [JSON], cap: Int64 = 3, demoMode: Bool = false) {
        platform.serve(
            test.document(test.payload(revision: revision, campaigns: campaigns, demoMode: demoMode, cap: cap)))
    }

    static let home = SlotID(placement: .homeTop, key: nil)
    static let feed = SlotID(placement: .homeFeed, key: nil)

    // MARK: - Configuration

    @Test("the bundled configuration is used until the network gives one; ETag and 304 keep it after")
    func bundledThenNetwork() async throws {
        let bundled = test.document(test.payload(revision: 1, campaigns: []))
        serve(revision: 2, [campaign("hero")])
        let client = try await client(bundled: bundled)
        #expect(await client.status().revision == 2)
        #expect(await client.status().source == .network)
        await client.advanceTime(by: 60_000)
        let configRequests = platform.requests(to: "/config")
        #expect(configRequests.count == 2)
        #expect(configRequests[0].headers["if-none-match"] == nil)
        #expect(configRequests[1].headers["if-none-match"] != nil)
        #expect(configRequests.allSatisfy { $0.headers["accept-encoding"] == "gzip" })
        #expect(await client.status().revision == 2)
        // Server down: the bundled one stays.
        platform.serve(nil)
        let offline = try await self.client(bundled: bundled)
        #expect(await offline.status().source == .bundle)
    }

    @Test("a document that does not verify, names another workspace or rolls back changes nothing")
    func refusedDocuments() async throws {
        serve(revision: 5, [campaign("hero")])
        let client = try await client()
        let payload = test.payload(revision: 6, campaigns: [])
        let stranger = TestSigner()
        let refused: [[UInt8]] = [
            test.document(payload, signers: [("cfg-unknown", stranger)]),
            test.document(payload, signers: [("cfg-current", stranger)]),
            test.document(payload, alg: "ES384"),
            test.document(payload, typ: "grona-grant+jwt"),
            test.document(test.payload(revision: 6, campaigns: [], workspaceKey: "other")),
            test.document(test.payload(revision: 4, campaigns: [])),
        ]
        for document in refused {
            platform.serve(document)
            await client.foreground()
            #expect(await client.status().revision == 5)
        }
        // Signed by the next key alone, with an unknown kid beside it: used.
        platform.serve(test.document(payload, signers: [("cfg-unknown", stranger), ("cfg-next", test.next)]))
        await client.foreground()
        #expect(await client.status().revision == 6)
    }

    @Test(
        "each configuration mutant adopts the document the reference refuses",
        arguments: [
            Mutation.skipSignatureVerification, .acceptAnyKid, .acceptWrongAlgorithm, .dropNextKey, .acceptRollback,
            .acceptOtherWorkspace,
        ])
    func configurationMutants(_ mutation: Mutation) async throws {
        serve(revision: 5, [campaign("hero")])
        let stranger = TestSigner()
        let payload = test.payload(revision: 6, campaigns: [])
        let document: [UInt8] =
            switch mutation {
            case .skipSignatureVerification: test.document(payload, signers: [("cfg-current", stranger)])
            case .acceptAnyKid: test.document(payload, signers: [("cfg-unknown", stranger)])
            case .acceptWrongAlgorithm: test.document(payload, alg: "ES512")
            case .dropNextKey: test.document(payload, signers: [("cfg-next", test.next)])
            case .acceptRollback: test.document(test.payload(revision: 4, campaigns: []))
            default: test.document(test.payload(revision: 6, campaigns: [], workspaceKey: "other"))
            }
        for (client, adopts) in [
            (try await client(), mutation == .dropNextKey),
            (try await client(mutation: mutation), mutation != .dropNextKey),
        ] {
            platform.serve(document)
            await client.foreground()
            let revision = await client.status().revision
            #expect((revision != 5) == adopts, "\(mutation): revision \(String(describing: revision))")
            serve(revision: 5, [campaign("hero")])
        }
    }

    // MARK: - Kills and other changes

    @Test("a kill leaves the screen at once and nothing more is logged for it; other changes wait for the next visit")
    func killsAndChanges() async throws {
        serve(revision: 1, [campaign("hero", priority: 10), campaign("feed", placement: "home_feed")])
        let client = try await client()
        _ = await client.startVisit(screen: Screen(type: .home), basket: nil)
        let rendered = try await client.render([Self.home, Self.feed])
        #expect(rendered.map { $0.content?.campaignID } == ["hero", "feed"])
        // Revision 2 kills feed and adds a higher-priority campaign on home_top.
        serve(
            revision: 2,
            [
                campaign("hero", priority: 10), campaign("feed", placement: "home_feed", status: "killed"),
                campaign("new", priority: 99),
            ])
        await client.advanceTime(by: 60_000)
        #expect(await client.status().revision == 2)
        #expect(await client.onScreen().map { $0.content?.campaignID } == ["hero", nil])
        await client.anchorVisible(Self.feed)
        await client.anchorVisible(Self.home)
        await client.flush()
        #expect(platform.events.filter { $0["campaignID"] == "feed" }.map { $0["type"] } == ["eligible", "served"])
        #expect(platform.events("exposure").map { $0["campaignID"] } == ["hero"])
        _ = await client.startVisit(screen: Screen(type: .home), basket: nil)
        let next = try await client.render([Self.home, Self.feed])
        #expect(next.map { $0.content?.campaignID } == ["new", nil])
    }

    // MARK: - Deciding

    @Test("priority across placements under the per-screen cap; lower priorities yield and log nothing")
    func perScreenCap() async throws {
        serve(
            revision: 1,
            [
                campaign("low", placement: "home_top", priority: 1),
                campaign("high", placement: "home_feed", priority: 5),
            ], cap: 1)
        let client = try await client()
        _ = await client.startVisit(screen: Screen(type: .home), basket: nil)
        let rendered = try await client.render([Self.home, Self.feed])
        #expect(rendered.map { $0.content?.campaignID } == [nil, "high"])
        await client.flush()
        #expect(platform.events.map { $0["campaignID"] } == ["high", "high"])
    }

    @Test("schedule on the SDK clock, targeting, unknown types and foreign image hosts are skipped")
    func candidates() async throws {
        let startS = Self.startMs / 1000
        let banner: JSON = ["id": "v", "weight": 10_000, "component": ["type": "banner", "title": "t"]]
        let imaged = banner.with("component", ["type": "banner", "title": "t", "image": "https://evil.example/x.png"])
        serve(
            revision: 1,
            [
                campaign("later", priority: 90, variants: [banner], schedule: ["startsAt": .integer(startS + 60)]),
                campaign(
                    "cart-only", priority: 80, variants: [banner],
                    targeting: ["field": "screen.type", "op": "eq", "value": "cart"]),
                campaign(
                    "newer", priority: 70, variants: [["id": "v", "weight": 10_000, "decision": ["type": "hologram"]]]),
                campaign("foreign-image", priority: 60, variants: [imaged]),
                campaign("fallback", priority: 1),
            ])
        let client = try await client()
        _ = await client.startVisit(screen: Screen(type: .home), basket: nil)
        #expect(try await client.render([Self.home]).first?.content?.campaignID == "fallback")
        await client.advanceTime(by: 60_000)
        _ = await client.startVisit(screen: Screen(type: .home), basket: nil)
        #expect(try await client.render([Self.home]).first?.content?.campaignID == "later")
    }

    @Test("control and holdout arms show nothing, log eligible and anchor_visible, and refuse act")
    func controlArm() async throws {
        let control: JSON = ["id": "control", "weight": 10_000, "control": true]
        serve(revision: 1, [campaign("hero", variants: [control])])
        let client = try await client()
        _ = await client.startVisit(screen: Screen(type: .home), basket: nil)
        #expect(try await client.render([Self.home]).first?.content == nil)
        await client.anchorVisible(Self.home)
        await #expect(throws: RefusedCommand.self) { try await client.act(Self.home, result: .accepted) }
        await client.flush()
        #expect(platform.events.map { $0["type"] } == ["eligible", "anchor_visible"])
        #expect(platform.events.allSatisfy { $0["arm"] == "control" })
    }

    // MARK: - Events

    @Test("each of eligible, served, anchor_visible and exposure once per visit, with the fields of contract §7")
    func oncePerVisit() async throws {
        serve(revision: 3, [campaign("hero")], demoMode: true)
        let client = try await client(customerID: "cust_1")
        let visitID = await client.startVisit(screen: Screen(type: .home), basket: nil)
        for _ in 0..<2 {
            _ = try await client.render([Self.home])
            await client.anchorVisible(Self.home)
        }
        try await client.act(Self.home, result: .partial)
        await client.flush()
        let events = platform.events
        #expect(events.map { $0["type"] } == ["eligible", "served", "anchor_visible", "exposure", "action"])
        #expect(events.last?["action"] == ["kind": "navigate", "route": ["type": "cart"], "result": "partial"])
        #expect(Set(events.compactMap { $0["eventID"]?.stringValue }).count == events.count)
        #expect(
            events.allSatisfy { $0["timestamp"]?.int64Value == Self.startMs && $0["visitID"]?.stringValue == visitID })
        #expect(events.allSatisfy { $0["configRevision"] == 3 && $0["demo"] == true && $0["customerID"] == "cust_1" })
        #expect(platform.batches.first?["sentAt"]?.int64Value == Self.startMs)
    }

    @Test("a failed batch goes again with the same eventIDs after 1 s, then 2 s; sentAt is each send's time")
    func retries() async throws {
        serve(revision: 1, [campaign("hero")])
        platform.answerEvents(.status(500, retryAfter: nil), .drop, .status(429, retryAfter: "5"))
        let client = try await client()
        _ = await client.startVisit(screen: Screen(type: .home), basket: nil)
        _ = try await client.render([Self.home])
        await client.flush()
        await client.advanceTime(by: 999)
        #expect(platform.batches.count == 1)
        await client.advanceTime(by: 1)
        await client.advanceTime(by: 1_999)
        #expect(platform.batches.count == 2)
        await client.advanceTime(by: 1)
        await client.advanceTime(by: 4_999)
        #expect(platform.batches.count == 3)
        await client.advanceTime(by: 1)
        let batches = platform.batches
        #expect(batches.count == 4)
        #expect(batches.map { $0["sentAt"]?.int64Value } == [0, 1_000, 3_000, 8_000].map { Self.startMs + $0 })
        let ids = batches.map { $0["events"]?.arrayValue?.map { $0["eventID"] } }
        #expect(Set(ids.map { "\($0 ?? [])" }).count == 1)
        #expect(await client.status().queuedEvents == 0)
    }

    @Test("batches go by size and by age, gzipped")
    func batching() async throws {
        serve(revision: 1, [campaign("hero")])
        let client = try await client(batch: 3, ageMs: 10_000)
        _ = await client.startVisit(screen: Screen(type: .home), basket: nil)
        _ = try await client.render([Self.home])
        #expect(platform.batches.isEmpty)
        await client.anchorVisible(Self.home)  // 4 events: the third fills a batch
        #expect(platform.batches.map { $0["events"]?.arrayValue?.count } == [3])
        #expect(platform.requests(to: "/events").allSatisfy { $0.headers["content-encoding"] == "gzip" })
        await client.advanceTime(by: 9_999)
        #expect(platform.batches.count == 1)
        await client.advanceTime(by: 1)
        #expect(platform.batches.map { $0["events"]?.arrayValue?.count } == [3, 1])
    }

    @Test("no-gzip sends batches uncompressed though gzip is asked for")
    func noGzip() async throws {
        serve(revision: 1, [campaign("hero")])
        let client = try await client(mutation: .noGzip)
        await client.purchase(orderID: "o", totalMinor: 1, currency: nil, productIDs: [], treatments: [])
        await client.flush()
        #expect(platform.requests(to: "/events").map { $0.headers["content-encoding"] } == [nil])
        #expect(platform.events.count == 1)
    }

    // MARK: - Grants

    @Test("an offer shows only with a verified, matching grant; grants refresh 5 minutes before exp and go on identify")
    func grants() async throws {
        let treatment: JSON = ["type": "percent_off", "valueMilli": 10_000]
        let offer: JSON = [
            "id": "ten-off", "weight": 10_000, "component": ["type": "offer", "title": "10%", "treatment": treatment],
        ]
        serve(
            revision: 1,
            [campaign("checkout-10-off", placement: "checkout_above_pay", unit: "customer", variants: [offer])])
        let nowS = Self.startMs / 1000
        let good = test.grant(
            customerID: "cust_1", campaignID: "checkout-10-off", variantID: "ten-off", treatment: treatment, nbf: nowS,
            exp: nowS + 3_600)
        let refused = [
            test.grant(
                customerID: "cust_2", campaignID: "checkout-10-off", variantID: "ten-off", treatment: treatment,
                nbf: nowS, exp: nowS + 3_600),
            test.grant(
                customerID: "cust_1", campaignID: "checkout-10-off", variantID: "ten-off", treatment: treatment,
                nbf: nowS - 7_200, exp: nowS - 61),
            test.grant(
                customerID: "cust_1", campaignID: "checkout-10-off", variantID: "ten-off", treatment: treatment,
                nbf: nowS, exp: nowS + 3_600, aud: "other"),
            test.grant(
                customerID: "cust_1", campaignID: "checkout-10-off", variantID: "ten-off", treatment: treatment,
                nbf: nowS, exp: nowS + 3_600, signer: TestSigner()),
            test.grant(
                customerID: "cust_1", campaignID: "checkout-10-off", variantID: "ten-off",
                treatment: ["type": "percent_off", "valueMilli": 20_000], nbf: nowS, exp: nowS + 3_600),
        ]
        let slot = SlotID(placement: .checkoutAbovePay, key: nil)
        platform.grant(refused)
        let client = try await client(customerID: "cust_1")
        #expect(await client.offers().isEmpty)
        _ = await client.startVisit(screen: Screen(type: .checkout), basket: nil)
        #expect(try await client.render([slot]).first?.content == nil)

        platform.grant(refused + [good])
        await client.identify(nil)
        await client.identify("cust_1")
        #expect(await client.offers().map(\.campaignID) == ["checkout-10-off"])
        _ = await client.startVisit(screen: Screen(type: .checkout), basket: nil)
        #expect(try await client.render([slot]).first?.content?.type == "offer")

        #expect(grantsSource.counter.value == 2)
        await client.advanceTime(by: 3_300_000 - 1)
        #expect(grantsSource.counter.value == 2)
        await client.advanceTime(by: 1)
        #expect(grantsSource.counter.value == 3)
        #expect(await client.offers().count == 1)
        // Another customer: cust_1's grants go, and only cust_2's own would be kept.
        platform.grant([good])
        await client.identify("cust_2")
        #expect(await client.offers().isEmpty)
    }
}
