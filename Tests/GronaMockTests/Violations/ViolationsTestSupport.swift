import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport

/// Installs and customers of the fixture workspace `shop` (MockFixture.workspace), chosen by the contract's
/// assignment function: home-hero (install unit, salt home-hero-1, control 5000 / banner 5000),
/// checkout-10-off (customer unit, salt checkout-10-off-1, control 5000 / ten-off 5000), holdout h-1 500.
enum ViolationUnits {
    static func isHeldOut(_ unit: String) -> Bool { Assignment.bucket(salt: "h-1", unit: unit) < 500 }

    /// An install not held out and assigned `banner` (or `control`), or one held out. `skip` picks another.
    static func install(banner: Bool, heldOut: Bool = false, skip: Int = 0) -> String {
        find(prefix: "install-", salt: "home-hero-1", treatment: banner, heldOut: heldOut, skip: skip)
    }

    /// A customer not held out and assigned `ten-off` (or `control`), or one held out.
    static func customer(offer: Bool, heldOut: Bool = false, skip: Int = 0) -> String {
        find(prefix: "cust_", salt: "checkout-10-off-1", treatment: offer, heldOut: heldOut, skip: skip)
    }

    private static func find(prefix: String, salt: String, treatment: Bool, heldOut: Bool, skip: Int) -> String {
        var skipped = 0
        for index in 0..<100_000 {
            let unit = "\(prefix)\(index)"
            guard isHeldOut(unit) == heldOut,
                heldOut || (Assignment.bucket(salt: salt, unit: unit) >= 5000) == treatment
            else { continue }
            if skipped == skip { return unit }
            skipped += 1
        }
        return "none"
    }
}

/// Builds a stream of events as an SDK sends them (grouped by install) and as the store lists them (with
/// `sequence`, `installID` and `correctedTimestamp`), numbering the events 1, 2, 3… in the order added.
struct ViolationStream {
    static let t0: Int64 = 1_764_478_800_000

    struct Sent {
        var installID: String
        var event: JSONValue
    }

    var sent: [Sent] = []
    var demo: Bool? = false
    var configRevision: Int64? = 3
    /// Event ids are `<idPrefix><sequence>`; streams posted to one workspace need different prefixes.
    var idPrefix = "e-"

    /// The sequence the next event gets.
    var next: Int64 { Int64(sent.count + 1) }

    /// Adds one placement event and returns its sequence.
    @discardableResult
    mutating func add(
        _ type: String, install: String, customer: String? = nil, campaign: String = "home-hero",
        variant: String = "banner", arm: String = "treatment", placement: String = "home_top",
        screen: JSONValue = ["type": "home"], visit: String = "v-1", time: Int64? = nil,
        extra: [(String, JSONValue)] = []
    ) -> Int64 {
        let sequence = next
        var object: JSONObject = [
            "eventID": .string("\(idPrefix)\(sequence)"), "type": .string(type),
            "timestamp": .number(JSONNumber(time ?? Self.t0 + sequence * 100)), "sessionID": "s-1",
            "customerID": customer.map(JSONValue.string) ?? .null, "placement": .string(placement), "screen": screen,
            "key": .null, "visitID": .string(visit), "campaignID": .string(campaign), "variantID": .string(variant),
            "arm": .string(arm),
        ]
        if let demo { object.set("demo", .bool(demo)) }
        if let configRevision { object.set("configRevision", .number(JSONNumber(configRevision))) }
        if type == "action" {
            object.set("action", ["kind": "navigate", "route": ["type": "deals"], "result": "accepted"])
        }
        for (name, value) in extra { object.set(name, value) }
        sent.append(Sent(installID: install, event: .object(object)))
        return sequence
    }

    /// eligible → anchor_visible → exposure → served → action (accepted): a whole visit of a treatment.
    @discardableResult
    mutating func visit(
        install: String, customer: String? = nil, campaign: String = "home-hero", variant: String = "banner",
        placement: String = "home_top", screen: JSONValue = ["type": "home"], visit: String
    ) -> [Int64] {
        ["eligible", "anchor_visible", "exposure", "served", "action"].map {
            add(
                $0, install: install, customer: customer, campaign: campaign, variant: variant, placement: placement,
                screen: screen, visit: visit)
        }
    }

    /// A purchase claiming the treatment of checkout-10-off/ten-off (or `variant`).
    @discardableResult
    mutating func purchase(
        install: String, customer: String?, campaign: String = "checkout-10-off", variant: String = "ten-off"
    ) -> Int64 {
        let sequence = next
        var object: JSONObject = [
            "eventID": .string("\(idPrefix)\(sequence)"), "type": "purchase",
            "timestamp": .number(JSONNumber(Self.t0 + sequence * 100)), "sessionID": "s-1",
            "customerID": customer.map(JSONValue.string) ?? .null, "orderID": .string("order-\(sequence)"),
            "totalMinor": 4_999, "currency": "EUR",
            "treatments": [
                [
                    "campaignID": .string(campaign), "variantID": .string(variant), "placement": "checkout_above_pay",
                    "type": "percent_off", "valueMilli": 10_000,
                ]
            ],
        ]
        if let demo { object.set("demo", .bool(demo)) }
        sent.append(Sent(installID: install, event: .object(object)))
        return sequence
    }

    /// The sequences of the events of `type` in `visit`.
    func sequences(_ type: String, visit: String) -> [Int64] {
        sent.enumerated().compactMap { index, item in
            item.event["type"]?.stringValue == type && item.event["visitID"]?.stringValue == visit
                ? Int64(index + 1) : nil
        }
    }

    /// The events as the store lists them: each with the server's fields, `correctedTimestamp` being the
    /// event's own time (no skew).
    var rows: [JSONValue] {
        sent.enumerated().map { index, item in
            var object = item.event.objectValue ?? JSONObject()
            object.set("sequence", .number(JSONNumber(Int64(index + 1))))
            object.set("workspaceKey", "shop")
            object.set("installID", .string(item.installID))
            let time = object["timestamp"] ?? .null
            object.set("receivedAt", time)
            object.set("correctedTimestamp", time)
            return .object(object)
        }
    }

    /// A realistic stream from a correct SDK: a banner visit, a control visit (eligible and anchor_visible
    /// only), a held-out install, the offer shown to a customer who fetched grants and a purchase claiming
    /// it, a control customer, and a second visit of the first install.
    static func correct(demo: Bool = false) -> ViolationStream {
        var stream = ViolationStream()
        stream.demo = demo
        let banner = ViolationUnits.install(banner: true)
        stream.visit(install: banner, visit: "v-1")
        let control = ViolationUnits.install(banner: false)
        stream.add("eligible", install: control, variant: "control", arm: "control", visit: "v-2")
        stream.add("anchor_visible", install: control, variant: "control", arm: "control", visit: "v-2")
        let heldOut = ViolationUnits.install(banner: true, heldOut: true)
        stream.add("eligible", install: heldOut, variant: "banner", arm: "holdout", visit: "v-3")
        let customer = ViolationUnits.customer(offer: true)
        stream.visit(
            install: banner, customer: customer, campaign: "checkout-10-off", variant: "ten-off",
            placement: "checkout_above_pay", screen: ["type": "checkout"], visit: "v-4")
        stream.purchase(install: banner, customer: customer)
        let controlCustomer = ViolationUnits.customer(offer: false)
        stream.add(
            "eligible", install: control, customer: controlCustomer, campaign: "checkout-10-off", variant: "control",
            arm: "control", placement: "checkout_above_pay", screen: ["type": "checkout"], visit: "v-5")
        stream.visit(install: banner, visit: "v-6")
        return stream
    }
}

/// The fixture workspace `shop`, validated as the server loads it; `demoMode` and `previews` set on demand.
enum ViolationWorkspace {
    static func shop(demoMode: Bool = false, previews: JSONValue? = nil) throws -> Workspace {
        var root = try JSONParser().parse(Array(MockFixture.workspace("shop").utf8)).objectValue ?? JSONObject()
        var config = root["config"]?.objectValue ?? JSONObject()
        config.set("demoMode", .bool(demoMode))
        if let previews { config.set("previews", previews) }
        root.set("config", .object(config))
        let outcome = WorkspaceValidator.validate(
            .object(root), expectedKey: "shop", keyIDs: ["cfg-1", "cfg-2", "grt-1", "grt-2"])
        guard let workspace = outcome.workspace, !outcome.hasErrors else {
            throw ViolationTestError(description: "the fixture workspace is invalid: \(outcome.problems)")
        }
        return workspace
    }
}

struct ViolationTestError: Error, CustomStringConvertible {
    var description: String
}

/// The grants a test says were issued: (customer, campaign, variant).
struct IssuedGrants: Sendable {
    var grants: Set<[String]>

    init(_ grants: [(String, String, String)] = []) {
        self.grants = Set(grants.map { [$0.0, $0.1, $0.2] })
    }

    /// The offer customer of `ViolationStream.correct()` holds a grant for checkout-10-off/ten-off.
    static let correct = IssuedGrants([(ViolationUnits.customer(offer: true), "checkout-10-off", "ten-off")])

    func issued(_ customer: String, _ campaign: String, _ variant: String) -> Bool {
        grants.contains([customer, campaign, variant])
    }
}
