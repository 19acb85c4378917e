import GronaMock
import GronaMockJSON
import Testing

@testable import GronaMockLoad

/// A service under test may sign a configuration from a newer contract: the fleet reads it with the engine's
/// vocabularies, shows nothing it does not understand, and logs what it did with the names it was given.
@Suite struct FleetVocabularyTests {
    static func json(_ text: String) throws -> JSONValue { try JSONParser().parse(Array(text.utf8)) }

    static func campaign(placement: String = "home_top", unit: String = "install", status: String = "live") throws
        -> FleetCampaign?
    {
        FleetCampaign(
            json: try json(
                """
                {"id": "c", "status": "\(status)", "placement": "\(placement)",
                 "assignment": {"unit": "\(unit)", "salt": "s"}, "variants": [{"id": "v", "weight": 10000,
                 "control": true}]}
                """))
    }

    @Test("a campaign whose placement or unit the fleet does not know is skipped; an unknown status is not live")
    func campaignNames() throws {
        #expect(try Self.campaign()?.placement == .homeTop)
        #expect(try Self.campaign(placement: "home_topp") == nil)
        #expect(try Self.campaign(unit: "session") == nil)
        #expect(try Self.campaign()?.isLive == true)
        #expect(try Self.campaign(status: "killed")?.isLive == false)
        #expect(try Self.campaign(status: "paused")?.isLive == false)
    }

    @Test("a component or decision type from a newer contract shows nothing")
    func newerContentShowsNothing() throws {
        let component = try Self.json(#"{"id": "v", "weight": 1, "component": {"type": "carousel_banner"}}"#)
        let decision = try Self.json(#"{"id": "v", "weight": 1, "decision": {"type": "carousel"}}"#)
        #expect(VariantContent(json: component) == .unknown)
        #expect(VariantContent(json: decision) == .unknown)
    }

    @Test("a call to action writes its action event's kind from the vocabulary, and a newer route as it came")
    func actions() throws {
        func action(_ json: String) throws -> String? {
            guard case .component(_, let action?, _) = VariantContent(json: try Self.json(json)) else { return nil }
            return String(decoding: action, as: UTF8.self)
        }
        let banner = #"{"id": "v", "weight": 1, "component": {"type": "banner", "title": "t", "cta": {"label": "l", "#
        #expect(
            try action(banner + #""action": {"type": "navigate", "route": {"type": "wishlist"}}}}}"#)
                == #"{"kind":"navigate","route":{"type":"wishlist"}"#)
        #expect(
            try action(banner + #""action": {"type": "navigate", "route": {"type": "product", "id": "p-1"}}}}}"#)
                == #"{"kind":"navigate","route":{"type":"product","id":"p-1"}"#)
        #expect(
            try action(banner + #""action": {"type": "add", "lines": [{"productID": "p-1", "quantity": 2}]}}}}"#)
                == #"{"kind":"add","lines":[{"productID":"p-1","quantity":2}]"#)
        #expect(try action(banner + #""action": {"type": "share"}}}}"#) == nil)

        let bundle = try Self.json(
            #"{"id": "v", "weight": 1, "decision": {"type": "bundle", "products": [{"productID": "p-1"}]}}"#)
        guard case .decision(.bundle, let bytes?, _) = VariantContent(json: bundle) else {
            Issue.record("not a bundle with an action")
            return
        }
        #expect(
            String(decoding: bytes, as: UTF8.self) == #"{"kind":"add_all","lines":[{"productID":"p-1","quantity":1}]"#)
    }

    @Test("a condition on a targeting field or with an operator from a newer contract is unreadable: false")
    func newerTargeting() throws {
        let context = TargetingContext(screen: .home)
        for rule in [
            #"{"field": "app.version", "op": "neq", "value": "1.0"}"#,
            #"{"field": "screen.type", "op": "matches", "value": "home"}"#,
        ] {
            let parsed = TargetingRule(json: try Self.json(rule))
            #expect(parsed == .unreadable && !parsed.matches(context), "\(rule)")
        }
        #expect(
            TargetingRule(json: try Self.json(#"{"field": "screen.type", "op": "eq", "value": "home"}"#))
                .matches(context))
    }
}
