import GronaReferenceSDK
import Testing

@Suite("Targeting (contract §4)")
struct TargetingTests {
    static let product = TargetingContext(
        screen: Screen(type: .product, id: "spaghetti-500g"),
        basket: Basket(totalMinor: 4500, lineCount: 3, productIDs: ["oat-milk-1l", "flour-plain-1kg", "eggs"]),
        identified: true)
    static let confirmation = TargetingContext(
        screen: Screen(type: .orderConfirmation, treatments: ["percent_off"]), basket: Basket(), identified: false)
    static let other = TargetingContext(
        screen: Screen(type: .other, name: "membership"), basket: Basket(), identified: false)

    /// One row per operator and field: the rule, the visit, and whether it matches.
    static let rows: [(String, TargetingContext, Bool)] = [
        (#"{"field":"screen.type","op":"eq","value":"product"}"#, product, true),
        (#"{"field":"screen.type","op":"neq","value":"product"}"#, product, false),
        (#"{"field":"screen.product","op":"contains","value":"spaghetti"}"#, product, true),
        (#"{"field":"screen.product","op":"in","value":["penne-500g","spaghetti-500g"]}"#, product, true),
        (#"{"field":"screen.product","op":"not_in","value":["penne-500g"]}"#, product, true),
        (#"{"field":"screen.category","op":"eq","value":"pasta"}"#, product, false),
        (#"{"field":"screen.category","op":"neq","value":"pasta"}"#, product, true),
        (#"{"field":"screen.category","op":"exists","value":false}"#, product, true),
        (#"{"field":"screen.product","op":"exists","value":true}"#, product, true),
        (#"{"field":"screen.name","op":"in","value":["membership","acme-plus"]}"#, other, true),
        (#"{"field":"screen.name","op":"eq","value":"membership"}"#, product, false),
        (#"{"field":"screen.treatments","op":"contains","value":"percent_off"}"#, confirmation, true),
        (#"{"field":"screen.treatments","op":"exists","value":false}"#, confirmation, false),
        (#"{"field":"screen.treatments","op":"exists","value":false}"#, other, true),
        (#"{"field":"basket.totalMinor","op":"gt","value":4500}"#, product, false),
        (#"{"field":"basket.totalMinor","op":"gte","value":4500}"#, product, true),
        (#"{"field":"basket.totalMinor","op":"lt","value":4500}"#, product, false),
        (#"{"field":"basket.totalMinor","op":"lte","value":4500}"#, product, true),
        (#"{"field":"basket.lineCount","op":"not_in","value":[0]}"#, product, true),
        (#"{"field":"basket.lineCount","op":"not_in","value":[0]}"#, other, false),
        (#"{"field":"basket.productIDs","op":"contains","value":"flour-plain-1kg"}"#, product, true),
        (#"{"field":"basket.productIDs","op":"contains","value":"gift-card-50"}"#, product, false),
        (#"{"field":"customer.identified","op":"eq","value":true}"#, product, true),
        (#"{"field":"customer.identified","op":"neq","value":false}"#, other, false),
        // A boolean never equals a number, and a number compared with text never holds.
        (#"{"field":"customer.identified","op":"eq","value":1}"#, product, false),
        (#"{"field":"basket.totalMinor","op":"gt","value":"100"}"#, product, false),
        (
            #"{"all":[{"field":"screen.type","op":"eq","value":"product"},{"field":"basket.lineCount","op":"gte","value":3}]}"#,
            product, true
        ),
        (#"{"all":[]}"#, product, true),
        (
            #"{"any":[{"field":"screen.type","op":"eq","value":"home"},{"field":"basket.lineCount","op":"gte","value":4}]}"#,
            product, false
        ),
        (#"{"any":[]}"#, product, false),
        (#"{"not":{"field":"basket.productIDs","op":"contains","value":"flour-plain-1kg"}}"#, product, false),
        // What this SDK cannot read never matches, not even under `not`.
        (#"{"not":{"field":"screen.colour","op":"eq","value":"red"}}"#, product, false),
        (
            #"{"any":[{"field":"screen.type","op":"eq","value":"product"},{"field":"x","op":"eq","value":1}]}"#,
            product, false
        ),
        (#"{"field":"screen.colour","op":"eq","value":"red"}"#, product, false),
        (#"{"field":"screen.type","op":"matches","value":"prod.*"}"#, product, false),
        (#"{"field":"screen.type","op":"eq"}"#, product, false),
        (#"{"every":[]}"#, product, false),
    ]

    @Test("every operator on every field", arguments: rows.indices)
    func row(_ index: Int) throws {
        let (text, context, expected) = Self.rows[index]
        let rule = TargetingRule(json: try JSONParser.parse(text))
        #expect(rule.matches(context) == expected, "\(text)")
    }

    @Test("every operator and field of the contract is read")
    func vocabulary() {
        #expect(TargetingOperator.allCases.count == 10)
        #expect(TargetingField.allCases.count == 9)
    }
}
