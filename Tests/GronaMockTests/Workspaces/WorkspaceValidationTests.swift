import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

// Over 400 lines on purpose: a table of invalid workspaces, one case per rule of docs/workspaces.md, kept in
// one file so that a new rule and its cases sit beside the others and a missing one shows.

/// Workspace validation (contract §3 and §4, docs/workspaces.md): one row per broken input, each made from a small
/// valid workspace by one change, with the exact problem a person reading the load log must see.
@Suite("Workspace validation")
struct WorkspaceValidationTests {
    static let keyIDs: Set<String> = ["cfg-1", "cfg-2", "grt-1"]
    static let key = "test-shop"

    @Test("the base workspace that every row breaks is valid, with no warnings")
    func baseIsValid() throws {
        let outcome = WorkspaceValidator.validate(
            Array(Self.baseText.utf8), expectedKey: Self.key, keyIDs: Self.keyIDs)
        #expect(outcome.problems.map(\.description) == [])
        let workspace = try #require(outcome.workspace)
        #expect(workspace.key == Self.key)
        #expect(
            workspace.campaigns.map(\.id) == [
                "home-hero", "checkout-10-off", "cart-progress", "cart-swaps", "home-feed-rail",
            ])
        #expect(workspace.holdout?.salt == "shop-holdout-1")
        #expect(workspace.holdout?.weight == 500)
        let treatment = workspace.campaign("checkout-10-off")?.variants.last?.treatment
        #expect(treatment?.type == .percentOff)
        #expect(treatment?.valueMilli == 10_000)
    }

    @Test("a broken workspace reports its problem, with its severity, path and reason", arguments: Self.rows)
    func brokenWorkspace(_ row: Row) throws {
        let (bytes, secrets) = try row.input()
        let outcome = WorkspaceValidator.validate(bytes, expectedKey: Self.key, keyIDs: Self.keyIDs)
        let expected = [row.expected] + row.also
        let unexpected = outcome.problems.filter { problem in !expected.contains { $0.matches(problem) } }
        let report = outcome.problems.map { "\($0.severity): \($0)" }.joined(separator: "\n")

        func expectProblems() {
            for problem in expected {
                #expect(outcome.problems.contains(where: problem.matches), "expected \(problem), got:\n\(report)")
            }
        }
        func expectNothingElse() {
            #expect(unexpected.isEmpty, "only \(expected) expected, got:\n\(report)")
        }
        func expectNoSecrets() {
            for problem in outcome.problems {
                for secret in secrets where secret.count >= 4 {
                    #expect(!problem.description.contains(secret), "a secret key leaked into \"\(problem)\"")
                }
            }
        }
        expectProblems()
        expectNothingElse()
        expectNoSecrets()
        for problem in outcome.problems where !problem.path.isRoot {
            #expect(problem.description == "\(problem.path): \(problem.reason)")
        }
        if row.expected.severity == .warning {
            // A warning serves the workspace whole: nothing was dropped.
            #expect(outcome.workspace?.campaigns.count == 5)
        }
    }

    @Test("every problem is reported at once, not just the first")
    func allProblemsAtOnce() throws {
        let edits: [Edit] = [
            set("workspaceKey", "other-shop"),
            set("secretKeys", ["sk_7chr"]),
            set("grants.ttlSeconds", 59),
            set("config.settings.maxComponentsPerScreen", 11),
            set("config.campaigns[1].variants[1].component.treatment.valueMilli", 0),
            set("config.previews[0].token", "pv home"),
        ]
        let bytes = try Self.base(with: edits).serialized()
        let outcome = WorkspaceValidator.validate(bytes, expectedKey: Self.key, keyIDs: Self.keyIDs)
        let expected: [Expected] = [
            .error("workspaceKey", #""other-shop" does not match the file or URL, which name "test-shop""#),
            .error("secretKeys[0]", "must be 8 to 200 printable ASCII characters"),
            .error("grants.ttlSeconds", "must be from 60 to 604800, not 59"),
            .error("settings.maxComponentsPerScreen", "must be from 1 to 10, not 11"),
            .error(
                "campaigns[1].variants[1].component.treatment.valueMilli",
                "must be from 1 to 100000 for percent_off (0.001 % to 100 %), not 0"),
            .error("previews[0].token", #""pv home" is not a preview token"#),
        ]
        for problem in expected {
            #expect(outcome.problems.contains(where: problem.matches), "missing \(problem)")
        }
        #expect(outcome.errors.count == expected.count, "\(outcome.problems.map(\.description))")
    }

    @Test("targeting nested exactly 16 deep is accepted; 17 is the row \"targeting nested 17 deep\"")
    func targetingDepthBoundary() throws {
        let bytes = try Self.base(with: [set("config.campaigns[0].targeting", nestedNot(15))]).serialized()
        let outcome = WorkspaceValidator.validate(bytes, expectedKey: Self.key, keyIDs: Self.keyIDs)
        #expect(outcome.problems.map(\.description) == [])
    }

    @Test("defaults are written into the served config body")
    func defaultsApplied() throws {
        let text = #"""
            {"workspaceKey": "test-shop", "secretKeys": ["sk_test_shop_local_0001"],
             "signing": {"configKeys": ["cfg-1"], "grantKeys": ["grt-1"]},
             "config": {"campaigns": []}}
            """#
        let outcome = WorkspaceValidator.validate(Array(text.utf8), expectedKey: Self.key, keyIDs: Self.keyIDs)
        #expect(outcome.problems.map(\.description) == [])
        let workspace = try #require(outcome.workspace)
        let settings = try #require(workspace.config["settings"])
        #expect(settings["maxComponentsPerScreen"] == 3)
        #expect(settings["imageHosts"] == [])
        #expect(settings["holdout"] == nil)
        #expect(workspace.config["previews"] == [])
        #expect(workspace.config["campaigns"] == [])
        #expect(workspace.config["demoMode"] == false)
        #expect(workspace.grantTTLSeconds == 3600)
        #expect(workspace.demoMode == false)
        #expect(workspace.holdout == nil)
    }

    @Test("the committed workspaces validate with no errors", arguments: ["acme-market", "hostile"])
    func committedWorkspace(_ name: String) throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let bytes = try [UInt8](Data(contentsOf: root.appendingPathComponent("workspaces/\(name).json")))
        let keyFiles = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("keys").path)
        let keyIDs = Set(keyFiles.filter { $0.hasSuffix(".pem") }.map { String($0.dropLast(".pem".count)) })
        let outcome = WorkspaceValidator.validate(bytes, expectedKey: name, keyIDs: keyIDs)
        #expect(outcome.errors.map(\.description) == [])
        #expect(outcome.workspace?.key == name)
        for warning in outcome.warnings {
            #expect(warning.reason.contains("is not a decision type this SDK knows"), "\(warning)")
        }
    }
}

// MARK: - Rows

extension WorkspaceValidationTests {
    static let rows: [Row] =
        fileRows + settingsRows + campaignRows + variantRows + componentRows + decisionRows + targetingRows
        + previewRows + urlRows

    static let fileRows: [Row] = [
        Row(
            "not JSON", text: #"{"workspaceKey": "test-shop",}"#,
            .error("$", "not valid JSON: a trailing comma before '}' is not allowed at line 1, column 30")),
        Row("not an object", text: #"["test-shop"]"#, .error("$", "the workspace must be a JSON object, not an array")),
        Row(
            "not JSON, and the broken part is a secret: the message must not quote it",
            text: #"{"workspaceKey": "test-shop", "secretKeys": [hunterhunterhunter]}"#,
            .error("$", "not valid JSON"), secrets: ["hunterhunterhunter"]),
        Row("workspaceKey missing", [remove("workspaceKey")], .error("workspaceKey", "is required (a string)")),
        Row(
            "workspaceKey not a key", [set("workspaceKey", "Test_Shop")],
            .error("workspaceKey", #""Test_Shop" is not a workspace key ([a-z0-9][a-z0-9-]{0,62})"#)),
        Row(
            "workspaceKey of 64 characters", [set("workspaceKey", .string(String(repeating: "a", count: 64)))],
            .error("workspaceKey", "is not a workspace key")),
        Row(
            "workspaceKey names another file", [set("workspaceKey", "other-shop")],
            .error("workspaceKey", #""other-shop" does not match the file or URL, which name "test-shop""#)),
        Row("secretKeys missing", [remove("secretKeys")], .error("secretKeys", "is required (a list)")),
        Row("secretKeys empty", [set("secretKeys", [])], .error("secretKeys", "must not be empty")),
        Row(
            "secret key of 7 characters", [set("secretKeys", ["sk_7chr"])],
            .error("secretKeys[0]", "must be 8 to 200 printable ASCII characters")),
        Row(
            "secret key of 201 characters", [set("secretKeys", [.string(String(repeating: "k", count: 201))])],
            .error("secretKeys[0]", "must be 8 to 200 printable ASCII characters")),
        Row(
            "secret key with a space", [set("secretKeys[1]", "sk_test shop_local")],
            .error("secretKeys[1]", "must be 8 to 200 printable ASCII characters without spaces")),
        Row(
            "secret key listed twice", [set("secretKeys[1]", "sk_test_shop_local_0001")],
            .error("secretKeys[1]", "repeats an earlier secret key")),
        Row("secret key a number", [set("secretKeys[0]", 12_345_678)], .error("secretKeys[0]", "must be a string")),
        Row("signing missing", [remove("signing")], .error("signing", "is required (an object)")),
        Row(
            "configKeys missing", [remove("signing.configKeys")],
            .error("signing.configKeys", "is required (a list)")),
        Row("grantKeys empty", [set("signing.grantKeys", [])], .error("signing.grantKeys", "must not be empty")),
        Row(
            "config key that does not exist", [set("signing.configKeys[1]", "cfg-9")],
            .error("signing.configKeys[1]", #"no key "cfg-9" in the keys directory (expected cfg-9.pem there)"#)),
        Row(
            "config key listed twice", [set("signing.configKeys[1]", "cfg-1")],
            .error("signing.configKeys[1]", #"key "cfg-1" is listed twice"#)),
        Row(
            "grant key id that could be a path", [set("signing.grantKeys[0]", "../grt-1")],
            .error("signing.grantKeys[0]", #""../grt-1" is not a key id ([A-Za-z0-9._-]{1,64})"#)),
        Row(
            "ttlSeconds below a minute", [set("grants.ttlSeconds", 59)],
            .error("grants.ttlSeconds", "must be from 60 to 604800, not 59")),
        Row(
            "ttlSeconds above a week", [set("grants.ttlSeconds", 604_801)],
            .error("grants.ttlSeconds", "must be from 60 to 604800, not 604801")),
        Row("config missing", [remove("config")], .error("config", "is required (an object)")),
        Row(
            "unknown top-level field", [set("comment", "draft")],
            .warning("comment", #"unknown field "comment" is ignored"#)),
        Row(
            "unknown config field (a typo of campaigns)", [set("config.campaign", [])],
            .warning("campaign", #"unknown field "campaign" is ignored"#)),
    ]

    static let settingsRows: [Row] = [
        // Found by the control-bodies fuzzer: these overrode the server's fields of the signed payload.
        Row(
            "config sets revision", [set("config.revision", [])],
            .error("revision", "is set by the server in the signed configuration; remove it")),
        Row(
            "config sets issuedAt", [set("config.issuedAt", 1)],
            .error("issuedAt", "is set by the server in the signed configuration; remove it")),
        Row(
            "config sets workspaceKey", [set("config.workspaceKey", "other")],
            .error("workspaceKey", "is set by the server in the signed configuration; remove it")),
        Row(
            "config sets schemaVersion", [set("config.schemaVersion", 2)],
            .error("schemaVersion", "is set by the server in the signed configuration; remove it")),
        Row(
            "demoMode a string", [set("config.demoMode", "no")],
            .error("demoMode", "must be true or false, not a string")),
        Row(
            "maxComponentsPerScreen 0", [set("config.settings.maxComponentsPerScreen", 0)],
            .error("settings.maxComponentsPerScreen", "must be from 1 to 10, not 0")),
        Row(
            "maxComponentsPerScreen 11", [set("config.settings.maxComponentsPerScreen", 11)],
            .error("settings.maxComponentsPerScreen", "must be from 1 to 10, not 11")),
        Row(
            "image host written as a URL", [set("config.settings.imageHosts[1]", "https://cdn.shop.example")],
            .error("settings.imageHosts[1]", #""https://cdn.shop.example" is not a host name"#)),
        Row(
            "image host in capitals", [set("config.settings.imageHosts[1]", "CDN.shop.example")],
            .error("settings.imageHosts[1]", #""CDN.shop.example" is not a host name"#)),
        Row(
            "holdout weight 10001", [set("config.settings.holdout.weight", 10_001)],
            .error("settings.holdout.weight", "must be from 0 to 10000, not 10001")),
        Row(
            "holdout without salt", [remove("config.settings.holdout.salt")],
            .error("settings.holdout.salt", "is required (a string)")),
    ]

    static let campaignRows: [Row] = [
        Row(
            "campaign id not an id", [set("config.campaigns[1].id", "-checkout")],
            .error("campaigns[1].id", #""-checkout" is not a campaign id ([A-Za-z0-9][A-Za-z0-9_.-]{0,63})"#)),
        Row(
            "campaign id used twice", [set("config.campaigns[1].id", "home-hero")],
            .error("campaigns[1].id", #"campaign "home-hero" is defined twice"#)),
        Row(
            "status unknown", [set("config.campaigns[2].status", "paused")],
            .error("campaigns[2].status", #"unknown status "paused"; expected one of live, killed"#)),
        Row(
            "priority not an integer", [setJSON("config.campaigns[2].priority", "1.5")],
            .error("campaigns[2].priority", "must be an integer (a whole number), not 1.5")),
        Row(
            "priority a string", [set("config.campaigns[2].priority", "high")],
            .error("campaigns[2].priority", "must be an integer, not a string")),
        Row(
            "placement unknown", [set("config.campaigns[0].placement", "home_topp")],
            .error("campaigns[0].placement", #"unknown placement "home_topp"; expected one of home_top, home_feed"#)),
        Row(
            "assignment unit unknown", [set("config.campaigns[2].assignment.unit", "device")],
            .error(
                "campaigns[2].assignment.unit", #"unknown assignment unit "device"; expected one of install, customer"#)
        ),
        Row(
            "assignment salt empty", [set("config.campaigns[2].assignment.salt", "")],
            .error("campaigns[2].assignment.salt", "must not be empty")),
        Row(
            "offer campaign assigned by install", [set("config.campaigns[1].assignment.unit", "install")],
            .error("campaigns[1].assignment.unit", #"a campaign with an offer must use "customer""#)),
        Row(
            "schedule starts when it ends", [set("config.campaigns[0].schedule.endsAt", 1_764_478_800)],
            .error("campaigns[0].schedule.endsAt", "must be after startsAt (1764478800), not 1764478800")),
        Row(
            "schedule in milliseconds", [set("config.campaigns[0].schedule.startsAt", 1_764_478_800_000)],
            .error("campaigns[0].schedule.startsAt", "must be Unix seconds; 1764478800000 looks like milliseconds")),
        Row(
            "variants empty", [set("config.campaigns[1].variants", [])],
            .error("campaigns[1].variants", "must not be empty")),
        Row(
            "unknown campaign field", [set("config.campaigns[2].priorty", 5)],
            .warning("campaigns[2].priorty", #"unknown field "priorty" is ignored"#)),
    ]

    static let variantRows: [Row] = [
        Row(
            "weights sum to 10001", [set("config.campaigns[0].variants[0].weight", 2001)],
            .error("campaigns[0].variants", "weights must sum to 10000 (buckets out of 10,000), not 10001")),
        Row(
            "weight negative", [set("config.campaigns[0].variants[0].weight", -1)],
            .error("campaigns[0].variants[0].weight", "must be from 0 to 10000, not -1")),
        Row(
            "weight beyond Int64", [setJSON("config.campaigns[0].variants[0].weight", "100000000000000000000")],
            .error("campaigns[0].variants[0].weight", "must be from 0 to 10000")),
        Row(
            "variant id not an id", [set("config.campaigns[0].variants[2].id", "add two")],
            .error("campaigns[0].variants[2].id", #""add two" is not a variant id"#)),
        Row(
            "variant id used twice", [set("config.campaigns[0].variants[2].id", "banner")],
            .error("campaigns[0].variants[2].id", #"variant "banner" is defined twice"#)),
        Row(
            "variant with a component and a decision",
            [set("config.campaigns[0].variants[2].decision", ["type": "rail", "products": [["productID": "sku-1"]]])],
            .error("campaigns[0].variants[2]", "has both a component and a decision; a variant carries exactly one")),
        Row(
            "variant with neither, not a control", [remove("config.campaigns[0].variants[2].component")],
            .error("campaigns[0].variants[2]", #"needs a component or a decision, or "control": true"#)),
        Row(
            "control with content",
            [set("config.campaigns[0].variants[0].component", ["type": "message", "body": "Hello"])],
            .error("campaigns[0].variants[0]", "a control variant has no component or decision")),
        Row(
            "control not a boolean", [set("config.campaigns[0].variants[0].control", "yes")],
            .error("campaigns[0].variants[0].control", "must be true or false, not a string")),
    ]

    static let componentRows: [Row] = [
        Row(
            "component type unknown", [set("config.campaigns[0].variants[2].component.type", "carousel")],
            .error(
                "campaigns[0].variants[2].component.type",
                #"unknown component type "carousel"; expected one of banner, progress, offer, message"#)),
        Row(
            "banner without title", [remove("config.campaigns[0].variants[2].component.title")],
            .error("campaigns[0].variants[2].component.title", "is required (a string)")),
        Row(
            "progress thresholdMinor 0", [set("config.campaigns[2].variants[1].component.thresholdMinor", 0)],
            .error("campaigns[2].variants[1].component.thresholdMinor", "must be greater than 0, not 0")),
        Row(
            "percent_off 0", [set("config.campaigns[1].variants[1].component.treatment.valueMilli", 0)],
            .error(
                "campaigns[1].variants[1].component.treatment.valueMilli",
                "must be from 1 to 100000 for percent_off (0.001 % to 100 %), not 0")),
        Row(
            "percent_off above 100 %",
            [set("config.campaigns[1].variants[1].component.treatment.valueMilli", 100_001)],
            .error(
                "campaigns[1].variants[1].component.treatment.valueMilli",
                "must be from 1 to 100000 for percent_off (0.001 % to 100 %), not 100001")),
        Row(
            "free_delivery with a value",
            [set("config.campaigns[1].variants[1].component.treatment", ["type": "free_delivery", "valueMilli": 5])],
            .error("campaigns[1].variants[1].component.treatment.valueMilli", "must be 0 for free_delivery, not 5")),
        Row(
            "amount_off 0",
            [set("config.campaigns[1].variants[1].component.treatment", ["type": "amount_off", "valueMilli": 0])],
            .error("campaigns[1].variants[1].component.treatment.valueMilli", "not 0")),
        Row(
            "treatment type unknown", [set("config.campaigns[1].variants[1].component.treatment.type", "bogo")],
            .error("campaigns[1].variants[1].component.treatment.type", #"unknown treatment type "bogo""#)),
        Row(
            "message without body", [remove("config.campaigns[2].variants[2].component.body")],
            .error("campaigns[2].variants[2].component.body", "is required (a string)")),
        Row(
            "message tone unknown", [set("config.campaigns[2].variants[2].component.tone", "loud")],
            .error(
                "campaigns[2].variants[2].component.tone",
                #"unknown tone "loud"; expected one of info, success, warning"#)),
        Row(
            "image over http",
            [set("config.campaigns[0].variants[1].component.image", "http://images.shop.example/a.jpg")],
            .error(
                "campaigns[0].variants[1].component.image",
                #""http://images.shop.example/a.jpg" must be asset://img/<path> or an https URL"#)),
        Row(
            "image host not in imageHosts",
            [set("config.campaigns[0].variants[1].component.image", "https://evil.example/a.jpg")],
            .error(
                "campaigns[0].variants[1].component.image",
                #"host "evil.example" is not in settings.imageHosts (allowed: images.shop.example, cdn.shop.example)"#
            )),
        Row(
            "image host hidden behind user info",
            [
                set(
                    "config.campaigns[0].variants[1].component.image",
                    "https://images.shop.example:x@evil.example/a.jpg")
            ],
            .error("campaigns[0].variants[1].component.image", "evil.example")),
        Row(
            "image URL with a space",
            [set("config.campaigns[0].variants[1].component.image", "https://images.shop.example/two words.jpg")],
            .error("campaigns[0].variants[1].component.image", "two words")),
        Row(
            "asset path climbing out of img/",
            [set("config.campaigns[0].variants[2].component.image", "asset://img/../keys/cfg-1.pem")],
            .error(
                "campaigns[0].variants[2].component.image",
                #""asset://img/../keys/cfg-1.pem": an asset path has no empty, . or .. segments"#)
        ),
        Row(
            "add quantity 21", [set("config.campaigns[0].variants[2].component.cta.action.lines[1].quantity", 21)],
            .error("campaigns[0].variants[2].component.cta.action.lines[1].quantity", "must be from 1 to 20, not 21")),
        Row(
            "add with no lines", [set("config.campaigns[0].variants[2].component.cta.action.lines", [])],
            .error("campaigns[0].variants[2].component.cta.action.lines", "must not be empty")),
        Row(
            "product route without id", [remove("config.campaigns[0].variants[1].component.cta.action.route.id")],
            .error("campaigns[0].variants[1].component.cta.action.route.id", "is required (a string)")),
        Row(
            "home route with an id", [set("config.campaigns[0].variants[1].component.cta.action.route.type", "home")],
            .error("campaigns[0].variants[1].component.cta.action.route.id", "a home route takes no id")),
        Row(
            "route type unknown",
            [set("config.campaigns[0].variants[1].component.cta.action.route.type", "wishlist")],
            .error("campaigns[0].variants[1].component.cta.action.route.type", #"unknown route type "wishlist""#)),
        Row(
            "action type unknown", [set("config.campaigns[0].variants[1].component.cta.action.type", "open")],
            .error("campaigns[0].variants[1].component.cta.action.type", #"unknown action type "open""#)),
    ]

    static let decisionRows: [Row] = [
        Row(
            "substitute decision off cart_line", [set("config.campaigns[3].placement", "cart_top")],
            .error("campaigns[3].variants[1].decision.type", "substitute appears only on cart_line")),
        Row(
            "rail decision on cart_line", [set("config.campaigns[4].placement", "cart_line")],
            .error(
                "campaigns[4].variants[1].decision.type", #"cart_line carries only substitute decisions, not "rail""#)),
        Row(
            "component on cart_line",
            [
                remove("config.campaigns[3].variants[1].decision"),
                set("config.campaigns[3].variants[1].component", ["type": "message", "body": "Out of stock"]),
            ],
            .error("campaigns[3].variants[1].component", "cart_line carries only substitute decisions")),
        Row(
            "rail with no products", [set("config.campaigns[4].variants[1].decision.products", [])],
            .error("campaigns[4].variants[1].decision.products", "must not be empty")),
        Row(
            "decision product quantity 0", [set("config.campaigns[4].variants[1].decision.products[1].quantity", 0)],
            .error("campaigns[4].variants[1].decision.products[1].quantity", "must be from 1 to 20, not 0")),
        Row(
            "extras value a number", [set("config.campaigns[4].variants[1].decision.extras.columns", 2)],
            .error("campaigns[4].variants[1].decision.extras.columns", "extras values must be strings, not number")),
        Row(
            "decision type from a newer SDK is a warning",
            [
                set("config.campaigns[4].variants[1].decision.type", "carousel")
            ],
            .warning(
                "campaigns[4].variants[1].decision.type",
                #""carousel" is not a decision type this SDK knows (rail, bundle, product_card, substitute)"#)),
        Row(
            "decision of a newer type with extras that are not strings",
            [set("config.campaigns[4].variants[1].decision", ["type": "carousel", "extras": ["columns": 2]])],
            .error("campaigns[4].variants[1].decision.extras.columns", "extras values must be strings"),
            also: [.warning("campaigns[4].variants[1].decision.type", #""carousel" is not a decision type"#)]),
        Row(
            "decision type not snake_case", [set("config.campaigns[4].variants[1].decision.type", "Carousel")],
            .error(
                "campaigns[4].variants[1].decision.type",
                #""Carousel" is not a decision type: rail, bundle, product_card, substitute, or a newer SDK's type"#)),
        Row(
            "substitute with no out-of-stock product",
            [set("config.campaigns[3].variants[1].decision.substitutes", [:])],
            .error("campaigns[3].variants[1].decision.substitutes", "must name at least one out-of-stock product")),
        Row(
            "substitute with no swaps for a product",
            [set("config.campaigns[3].variants[1].decision.substitutes.oat-milk-1l", [])],
            .error(#"campaigns[3].variants[1].decision.substitutes["oat-milk-1l"]"#, "must not be empty")),
        Row(
            "substitute keyed by an empty product id",
            [setJSON("config.campaigns[3].variants[1].decision.substitutes", #"{"": [{"productID": "sku-2"}]}"#)],
            .error(#"campaigns[3].variants[1].decision.substitutes[""]"#, "empty")),
    ]

    static let targetingRows: [Row] = [
        Row(
            "targeting field unknown", [set("config.campaigns[0].targeting.all[0].field", "screen.typ")],
            .error("campaigns[0].targeting.all[0].field", #"unknown field "screen.typ"; expected one of screen.type"#)),
        Row(
            "gt on screen.type", [set("config.campaigns[0].targeting.all[0].op", "gt")],
            .error(
                "campaigns[0].targeting.all[0].op",
                #"screen.type does not take "gt"; it takes eq, neq, in, not_in, exists"#)),
        Row(
            "in with an empty list",
            [set("config.campaigns[0].targeting.all[0]", ["field": "screen.type", "op": "in", "value": []])],
            .error("campaigns[0].targeting.all[0].value", "must not be empty")),
        Row(
            "basket.totalMinor compared with a string", [set("config.campaigns[0].targeting.all[1].value", "1000")],
            .error("campaigns[0].targeting.all[1].value", "must be an integer, not a string")),
        Row(
            "screen type value unknown", [set("config.campaigns[0].targeting.all[0].value", "hom")],
            .error("campaigns[0].targeting.all[0].value", #"unknown screen type "hom"; expected one of home"#)),
        Row(
            "exists with a string",
            [set("config.campaigns[0].targeting.all[0]", ["field": "screen.type", "op": "exists", "value": "yes"])],
            .error("campaigns[0].targeting.all[0].value", "must be true or false, not a string")),
        Row(
            "condition without value", [remove("config.campaigns[0].targeting.all[0].value")],
            .error("campaigns[0].targeting.all[0].value", "is required")),
        Row(
            "screen.treatments contains an unknown treatment",
            [
                set(
                    "config.campaigns[0].targeting.all[0]",
                    ["field": "screen.treatments", "op": "contains", "value": "ten_off"])
            ],
            .error("campaigns[0].targeting.all[0].value", #"unknown treatment type "ten_off""#)),
        Row(
            "targeting nested 17 deep", [set("config.campaigns[0].targeting", nestedNot(16))],
            .error(
                "campaigns[0].targeting" + String(repeating: ".not", count: 16),
                "rules are nested more than 16 deep")),
        Row(
            "all with no rules", [set("config.campaigns[0].targeting", ["all": []])],
            .error("campaigns[0].targeting.all", "must not be empty")),
        Row(
            "all and any in one rule",
            [set("config.campaigns[0].targeting.any", [["field": "customer.identified", "op": "eq", "value": true]])],
            .error("campaigns[0].targeting", #"a rule is one of {"all": [...]}, {"any": [...]}, {"not": rule}"#)),
    ]

    static let previewRows: [Row] = [
        Row(
            "preview of an unknown campaign", [set("config.previews[0].campaignID", "home-heroo")],
            .error("previews[0].campaignID", #"no campaign "home-heroo" in this workspace"#)),
        Row(
            "preview of an unknown variant", [set("config.previews[0].variantID", "baner")],
            .error("previews[0].variantID", #"campaign "home-hero" has no variant "baner""#)),
        Row(
            "preview of a control", [set("config.previews[0].variantID", "control")],
            .error("previews[0].variantID", #""control" is a control: a preview pins content"#)),
        Row(
            "preview of an offer whose treatment is broken",
            [
                set(
                    "config.previews[0]",
                    ["token": "pv_offer", "campaignID": "checkout-10-off", "variantID": "ten-off"]),
                set("config.campaigns[1].variants[1].component.treatment.valueMilli", 0),
            ],
            .error(
                "campaigns[1].variants[1].component.treatment.valueMilli",
                "must be from 1 to 100000 for percent_off (0.001 % to 100 %), not 0")),
        Row(
            "preview token used twice",
            [
                set(
                    "config.previews[1]",
                    ["token": "pv_home_1", "campaignID": "checkout-10-off", "variantID": "ten-off"])
            ],
            .error("previews[1].token", #"token "pv_home_1" is used twice"#)),
        Row(
            "preview token with a space", [set("config.previews[0].token", "pv home")],
            .error("previews[0].token", #""pv home" is not a preview token ([A-Za-z0-9_-]{1,64})"#)),
    ]
}

// MARK: - The base workspace and how rows change it

extension WorkspaceValidationTests {
    /// A small valid workspace: a banner campaign with a control and a preview pin, an offer campaign using
    /// customer assignment, progress and message components, a cart_line substitute and a rail; holdout on.
    static let baseText = #"""
        {
          "workspaceKey": "test-shop",
          "secretKeys": ["sk_test_shop_local_0001", "sk_test_shop_local_0002"],
          "signing": { "configKeys": ["cfg-1", "cfg-2"], "grantKeys": ["grt-1"] },
          "grants": { "ttlSeconds": 3600 },
          "config": {
            "demoMode": false,
            "settings": {
              "maxComponentsPerScreen": 3,
              "imageHosts": ["images.shop.example", "cdn.shop.example"],
              "holdout": { "salt": "shop-holdout-1", "weight": 500 }
            },
            "campaigns": [
              {
                "id": "home-hero",
                "name": "Home hero",
                "status": "live",
                "priority": 100,
                "placement": "home_top",
                "assignment": { "unit": "install", "salt": "home-hero-1" },
                "schedule": { "startsAt": 1764478800, "endsAt": 1767157200 },
                "targeting": {
                  "all": [
                    { "field": "screen.type", "op": "eq", "value": "home" },
                    { "field": "basket.totalMinor", "op": "gte", "value": 1000 }
                  ]
                },
                "variants": [
                  { "id": "control", "weight": 2000, "control": true },
                  {
                    "id": "banner",
                    "weight": 4000,
                    "component": {
                      "type": "banner",
                      "title": "Spring-clean your pantry",
                      "body": "Pasta, rice and tins from 0.89.",
                      "image": "https://images.shop.example/hero/pantry.jpg",
                      "cta": {
                        "label": "See the pasta",
                        "action": { "type": "navigate", "route": { "type": "product", "id": "sku-1" } }
                      }
                    }
                  },
                  {
                    "id": "add-two",
                    "weight": 4000,
                    "component": {
                      "type": "banner",
                      "title": "Two for breakfast",
                      "image": "asset://img/hero/breakfast_2x.png",
                      "cta": {
                        "label": "Add both",
                        "action": {
                          "type": "add",
                          "lines": [{ "productID": "sku-1", "quantity": 1 }, { "productID": "sku-2", "quantity": 20 }]
                        }
                      }
                    }
                  }
                ]
              },
              {
                "id": "checkout-10-off",
                "status": "live",
                "priority": 50,
                "placement": "checkout_above_pay",
                "assignment": { "unit": "customer", "salt": "checkout-10-off-1" },
                "variants": [
                  { "id": "control", "weight": 5000, "control": true },
                  {
                    "id": "ten-off",
                    "weight": 5000,
                    "component": {
                      "type": "offer",
                      "title": "10 % off this order",
                      "treatment": { "type": "percent_off", "valueMilli": 10000 }
                    }
                  }
                ]
              },
              {
                "id": "cart-progress",
                "status": "live",
                "priority": 40,
                "placement": "cart_top",
                "assignment": { "unit": "install", "salt": "cart-progress-1" },
                "variants": [
                  { "id": "control", "weight": 4000, "control": true },
                  {
                    "id": "progress",
                    "weight": 3000,
                    "component": {
                      "type": "progress",
                      "thresholdMinor": 4000,
                      "remainingText": "Add {remaining} for free delivery",
                      "reachedText": "Free delivery unlocked"
                    }
                  },
                  {
                    "id": "tip",
                    "weight": 3000,
                    "component": { "type": "message", "title": "Tip", "body": "Order by 2 pm.", "tone": "info" }
                  }
                ]
              },
              {
                "id": "cart-swaps",
                "status": "live",
                "priority": 30,
                "placement": "cart_line",
                "assignment": { "unit": "install", "salt": "cart-swaps-1" },
                "variants": [
                  { "id": "control", "weight": 1000, "control": true },
                  {
                    "id": "swaps",
                    "weight": 9000,
                    "decision": {
                      "type": "substitute",
                      "title": "Out of stock",
                      "substitutes": {
                        "oat-milk-1l": [{ "productID": "oat-barista-1l", "quantity": 1, "label": "Barista" }]
                      }
                    }
                  }
                ]
              },
              {
                "id": "home-feed-rail",
                "status": "killed",
                "priority": 20,
                "placement": "home_feed",
                "assignment": { "unit": "install", "salt": "home-feed-rail-1" },
                "variants": [
                  { "id": "control", "weight": 2000, "control": true },
                  {
                    "id": "rail",
                    "weight": 8000,
                    "decision": {
                      "type": "rail",
                      "title": "Picked for you",
                      "products": [{ "productID": "sku-1" }, { "productID": "sku-2", "quantity": 2, "label": "Two" }],
                      "extras": { "layout": "compact" }
                    }
                  }
                ]
              }
            ],
            "previews": [{ "token": "pv_home_1", "campaignID": "home-hero", "variantID": "banner" }]
          }
        }
        """#

    /// What a row expects: one problem, matched on severity, rendered path and a part of the reason.
    struct Expected: Sendable, CustomStringConvertible {
        let severity: ValidationProblem.Severity
        let path: String
        let reason: String

        static func error(_ path: String, _ reason: String) -> Expected {
            Expected(severity: .error, path: path, reason: reason)
        }

        static func warning(_ path: String, _ reason: String) -> Expected {
            Expected(severity: .warning, path: path, reason: reason)
        }

        func matches(_ problem: ValidationProblem) -> Bool {
            problem.severity == severity && problem.path.description == path && problem.reason.contains(reason)
        }

        var description: String { "\(severity): \(path): …\(reason)…" }
    }

    struct Row: Sendable, CustomTestStringConvertible {
        enum Source: Sendable {
            case edits([Edit])
            case text(String)
        }

        let name: String
        let source: Source
        let expected: Expected
        /// Further problems that rightly follow from the same change.
        let also: [Expected]
        /// Secrets in a document the edits cannot read back (one that is not JSON).
        let extraSecrets: [String]

        init(_ name: String, _ edits: [Edit], _ expected: Expected, also: [Expected] = []) {
            self.name = name
            self.source = .edits(edits)
            self.expected = expected
            self.also = also
            self.extraSecrets = []
        }

        init(
            _ name: String, text: String, _ expected: Expected, secrets: [String] = []
        ) {
            self.name = name
            self.source = .text(text)
            self.expected = expected
            self.also = []
            self.extraSecrets = secrets
        }

        var testDescription: String { name }

        /// The document's bytes, and every secret key it holds, which no message may quote.
        func input() throws -> (bytes: [UInt8], secrets: [String]) {
            var secrets = extraSecrets
            switch source {
            case .text(let text):
                return (Array(text.utf8), secrets)
            case .edits(let edits):
                let document = try WorkspaceValidationTests.base(with: edits)
                for original in [try JSONParser().parse(WorkspaceValidationTests.baseText), document] {
                    secrets += original["secretKeys"]?.arrayValue?.compactMap(\.stringValue) ?? []
                }
                return (document.serialized(), secrets)
            }
        }
    }

    /// The base workspace with `edits` applied in order.
    static func base(with edits: [Edit]) throws -> JSONValue {
        var document = try JSONParser().parse(baseText)
        for edit in edits {
            let changed = try edit.apply(to: document)
            document = try #require(changed, "no such path in the base workspace: \(edit)")
        }
        return document
    }

    /// One change to the base document, at a path written as in the messages (`config.campaigns[0].id`).
    enum Edit: Sendable, CustomStringConvertible {
        case set(String, JSONValue)
        /// For values no Swift literal makes: `1.5`, numbers beyond Int64, objects with odd keys.
        case setJSON(String, String)
        case remove(String)

        var description: String {
            switch self {
            case .set(let path, let value): "set \(path) = \(value)"
            case .setJSON(let path, let text): "set \(path) = \(text)"
            case .remove(let path): "remove \(path)"
            }
        }

        /// The changed document, or nil when the path does not lead anywhere in it.
        func apply(to document: JSONValue) throws -> JSONValue? {
            switch self {
            case .set(let path, let value):
                return Self.replacing(in: document, at: Self.components(path)[...], with: value)
            case .setJSON(let path, let text):
                let value = try JSONParser().parse(text)
                return Self.replacing(in: document, at: Self.components(path)[...], with: value)
            case .remove(let path):
                return Self.replacing(in: document, at: Self.components(path)[...], with: nil)
            }
        }

        /// `a.b[2].c` as keys and indexes; keys in these paths hold no `.` or `[`.
        static func components(_ path: String) -> [JSONPath.Component] {
            var components: [JSONPath.Component] = []
            for segment in path.split(separator: ".") {
                let parts = segment.split(separator: "[", omittingEmptySubsequences: false)
                if let key = parts.first, !key.isEmpty { components.append(.key(String(key))) }
                for part in parts.dropFirst() {
                    components.append(Int(part.dropLast()).map { .index($0) } ?? .key(String(part)))
                }
            }
            return components
        }

        /// Sets (or with nil removes) the value at `path`; an index one past the end appends.
        private static func replacing(
            in value: JSONValue, at path: ArraySlice<JSONPath.Component>, with newValue: JSONValue?
        ) -> JSONValue? {
            guard let first = path.first else { return newValue }
            let rest = path.dropFirst()
            switch (first, value) {
            case (.key(let key), .object(var object)):
                if rest.isEmpty {
                    if newValue == nil && object[key] == nil { return nil }
                    object[key] = newValue
                } else {
                    guard let child = object[key], let changed = replacing(in: child, at: rest, with: newValue)
                    else { return nil }
                    object[key] = changed
                }
                return .object(object)
            case (.index(let index), .array(var array)):
                if rest.isEmpty, let newValue, index == array.count {
                    array.append(newValue)
                } else if rest.isEmpty, array.indices.contains(index) {
                    if let newValue { array[index] = newValue } else { array.remove(at: index) }
                } else {
                    guard array.indices.contains(index),
                        let changed = replacing(in: array[index], at: rest, with: newValue)
                    else { return nil }
                    array[index] = changed
                }
                return .array(array)
            default:
                return nil
            }
        }
    }
}

private func set(_ path: String, _ value: JSONValue) -> WorkspaceValidationTests.Edit {
    .set(path, value)
}

private func setJSON(_ path: String, _ json: String) -> WorkspaceValidationTests.Edit {
    .setJSON(path, json)
}

private func remove(_ path: String) -> WorkspaceValidationTests.Edit {
    .remove(path)
}

/// `{"not": {"not": … {"field": "screen.type", "op": "eq", "value": "home"}}}` with `count` nots.
private func nestedNot(_ count: Int) -> JSONValue {
    var rule: JSONValue = ["field": "screen.type", "op": "eq", "value": "home"]
    for _ in 0..<count { rule = ["not": rule] }
    return rule
}

extension WorkspaceValidationTests {
    static let urlRows: [Row] = [
        Row(
            "image with a port that is not a number",
            [set("config.campaigns[0].variants[1].component.image", "https://images.shop.example:x/a.jpg")],
            .error("campaigns[0].variants[1].component.image", "has a port that is not a number")),
        Row(
            "asset path with an empty segment",
            [set("config.campaigns[0].variants[2].component.image", "asset://img//etc/passwd")],
            .error("campaigns[0].variants[2].component.image", "an asset path has no empty, . or .. segments")),
        Row(
            "a stray combinator inside a condition",
            [set("config.campaigns[0].targeting.all[0].all", [])],
            .error("campaigns[0].targeting.all[0].all", "a condition has only field, op and value")),
    ]
}
