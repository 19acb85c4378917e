import GronaMockJSON
import Testing

@testable import GronaMockLoad

/// The targeting evaluator (contract §4), one row per operator and field kind, from rules written as JSON.
@Suite struct TargetingTests {
    static let cart = TargetingContext(
        screen: .cart, basketTotalMinor: 4500, basketProductIDs: ["oat-milk-1l", "flour-plain-1kg"], identified: true)
    static let product = TargetingContext(screen: .product, screenID: "spaghetti-500g")
    static let confirmation = TargetingContext(screen: .orderConfirmation, treatments: [.percentOff])

    static let rows: [(String, TargetingContext, Bool)] = [
        (#"{"field":"screen.type","op":"eq","value":"cart"}"#, cart, true),
        (#"{"field":"screen.type","op":"neq","value":"cart"}"#, cart, false),
        (#"{"field":"screen.type","op":"in","value":["search","cart"]}"#, cart, true),
        (#"{"field":"screen.type","op":"not_in","value":["search","cart"]}"#, cart, false),
        (#"{"field":"screen.product","op":"contains","value":"spaghetti"}"#, product, true),
        (#"{"field":"screen.product","op":"eq","value":"penne-500g"}"#, product, false),
        (#"{"field":"screen.product","op":"exists","value":false}"#, cart, true),
        (#"{"field":"screen.product","op":"neq","value":"x"}"#, cart, true),
        (#"{"field":"basket.totalMinor","op":"gte","value":4500}"#, cart, true),
        (#"{"field":"basket.totalMinor","op":"gt","value":4500}"#, cart, false),
        (#"{"field":"basket.totalMinor","op":"lt","value":15000}"#, cart, true),
        (#"{"field":"basket.lineCount","op":"lte","value":1}"#, cart, false),
        (#"{"field":"basket.lineCount","op":"not_in","value":[0]}"#, cart, true),
        (#"{"field":"basket.productIDs","op":"contains","value":"flour-plain-1kg"}"#, cart, true),
        (#"{"field":"customer.identified","op":"eq","value":true}"#, cart, true),
        (#"{"field":"customer.identified","op":"neq","value":false}"#, product, false),
        (#"{"field":"screen.treatments","op":"contains","value":"percent_off"}"#, confirmation, true),
        (#"{"field":"screen.treatments","op":"exists","value":false}"#, confirmation, false),
        (
            #"{"all":[{"field":"screen.type","op":"eq","value":"cart"},{"field":"basket.lineCount","op":"gte","value":2}]}"#,
            cart, true
        ),
        (
            #"{"any":[{"field":"screen.type","op":"eq","value":"home"},{"field":"basket.lineCount","op":"gte","value":8}]}"#,
            cart, false
        ),
        (#"{"not":{"field":"basket.productIDs","op":"contains","value":"gift-card-50"}}"#, cart, true),
        (#"{"field":"screen.colour","op":"eq","value":"red"}"#, cart, false),
        (#"{"field":"screen.type","op":"matches","value":"c.*"}"#, cart, false),
    ]

    @Test(arguments: rows.indices)
    func rule(row: Int) throws {
        let (text, context, expected) = Self.rows[row]
        let rule = TargetingRule(json: try JSONParser().parse(Array(text.utf8)))
        #expect(rule.matches(context) == expected, "\(text)")
    }
}
