import GronaReferenceSDK

/// The commands of the service protocol (its "Commands" table), by wire name, declared once.
enum CommandName: String, CaseIterable {
    case status, advanceTime, visit, render, onScreen, anchorVisible, act, dismiss, identify, offers, purchase
    case flush, background, foreground, network
}

/// One command with its parameters, checked.
enum Command {
    case status
    case advanceTime(ms: Int64)
    case visit(Screen, Basket?)
    case render([SlotID])
    case onScreen
    case anchorVisible(SlotID)
    case act(SlotID, ActionResult)
    case dismiss(SlotID)
    case identify(customerID: String?)
    case offers
    case purchase(orderID: String, totalMinor: Int64, currency: String?, productIDs: [String], treatments: [JSON])
    case flush, background, foreground
    case network(online: Bool)

    init(_ body: JSON) throws(ServiceError) {
        let fields = try Fields(body)
        let name = try fields.string("command")
        guard let command = CommandName(rawValue: name) else {
            let known = CommandName.allCases.map(\.rawValue).joined(separator: ", ")
            throw .badRequest("unknown command \"\(name)\"; this service knows \(known)")
        }
        switch command {
        case .status: self = .status
        case .advanceTime: self = .advanceTime(ms: try fields.integer("ms", in: 0...31_536_000_000))
        case .visit:
            let screen = try Self.screen(try fields.nested("screen"))
            let basket = try fields.nested("basket").map { basket throws(ServiceError) in
                Basket(
                    totalMinor: try basket.integer("totalMinor", in: 0...1_000_000_000_000, default: 0),
                    lineCount: try basket.integer("lineCount", in: 0...100_000, default: 0),
                    productIDs: try basket.strings("productIDs"))
            }
            self = .visit(screen, basket)
        case .render:
            guard let placements = fields.object["placements"]?.arrayValue, !placements.isEmpty,
                placements.count <= 100
            else { throw .badRequest("placements is required: a list of 1 to 100 {\"placement\", \"key\"?}") }
            var slots: [SlotID] = []
            for placement in placements { slots.append(try Self.slot(try Fields(placement, what: "a placement"))) }
            self = .render(slots)
        case .onScreen: self = .onScreen
        case .anchorVisible: self = .anchorVisible(try Self.slot(fields))
        case .act:
            let result = try fields.string("result")
            guard let actionResult = ActionResult(rawValue: result) else {
                throw .badRequest("result must be accepted, partial or rejected")
            }
            self = .act(try Self.slot(fields), actionResult)
        case .dismiss: self = .dismiss(try Self.slot(fields))
        case .identify:
            guard fields.object["customerID"] != nil else {
                throw .badRequest("customerID is required (a string, or null to forget the customer)")
            }
            self = .identify(customerID: try fields.optionalString("customerID", maxBytes: 128))
        case .offers: self = .offers
        case .purchase:
            guard let treatments = fields.object["treatments"]?.arrayValue,
                treatments.allSatisfy({ $0.objectValue != nil })
            else { throw .badRequest("treatments is required: a list of {\"campaignID\", \"variantID\", ...}") }
            self = .purchase(
                orderID: try fields.string("orderID"),
                totalMinor: try fields.integer("totalMinor", in: 0...1_000_000_000_000),
                currency: try fields.optionalString("currency", maxBytes: 3),
                productIDs: try fields.strings("productIDs", required: true), treatments: treatments)
        case .flush: self = .flush
        case .background: self = .background
        case .foreground: self = .foreground
        case .network: self = .network(online: try fields.bool("online"))
        }
    }

    /// `{"type", "id"?, "name"?, "treatments"?}`: `id` on product and category screens, `name` on other.
    private static func screen(_ fields: Fields?) throws(ServiceError) -> Screen {
        guard let fields else { throw .badRequest("screen is required ({\"type\", ...})") }
        let typeName = try fields.string("type")
        guard let type = ScreenType(rawValue: typeName) else {
            let known = ScreenType.allCases.map(\.rawValue).joined(separator: ", ")
            throw .badRequest("screen.type \"\(typeName)\" is not one of \(known)")
        }
        let screen = Screen(
            type: type, id: try fields.optionalString("id"), name: try fields.optionalString("name"),
            treatments: try fields.strings("treatments"))
        if type == .product || type == .category, screen.id == nil {
            throw .badRequest("screen.id is required on a \(typeName) screen")
        }
        if type == .other, screen.name == nil { throw .badRequest("screen.name is required on an other screen") }
        return screen
    }

    /// `{"placement", "key"?}`; a `cart_line` needs its key (contract §7).
    private static func slot(_ fields: Fields) throws(ServiceError) -> SlotID {
        let name = try fields.string("placement")
        guard let placement = Placement(rawValue: name) else {
            throw .badRequest("placement \"\(name)\" is not a placement of contract §4")
        }
        let key = try fields.optionalString("key", maxBytes: 256)
        if placement == .cartLine, key == nil { throw .badRequest("a cart_line placement needs its key") }
        return SlotID(placement: placement, key: key)
    }
}
