import GronaMockJSON

/// A stored event as the violation rules read it: the fields they use, anything missing nil (the store only
/// holds events that passed validation, so the rules need not repeat it). Names are read once into their
/// vocabularies, which the rules compare as cases; a name this version does not know (another instance's,
/// sharing the database) is kept as `unknown`, for the messages.
struct CheckedEvent {
    enum Preview {
        case token(String)
        case flag
    }

    /// A purchase's claimed treatment.
    struct Claim {
        var campaignID: String
        var variantID: String
        var placement: Placement?
    }

    var sequence: Int64
    var eventID: String
    var type: EventType
    var installID: String
    var customerID: String?
    var correctedTimestamp: Int64?
    var configRevision: Int64?
    var demo: Bool?
    var placement: Placement?
    /// `type`, with `id` or `name` when present: `product sku-1`.
    var screen: String
    var key: String?
    var visitID: String?
    var campaignID: String?
    var variantID: String?
    var arm: Arm?
    var preview: Preview?
    var treatments: [Claim]

    /// Reads a stored event: its JSON plus the server's `sequence`, `installID` and `correctedTimestamp`.
    init(_ value: JSONValue) {
        sequence = value["sequence"]?.int64Value ?? 0
        eventID = value["eventID"]?.stringValue ?? ""
        type = EventType(rawValue: value["type"]?.stringValue ?? "")
        installID = value["installID"]?.stringValue ?? ""
        customerID = value["customerID"]?.stringValue
        correctedTimestamp = value["correctedTimestamp"]?.int64Value ?? value["timestamp"]?.int64Value
        configRevision = value["configRevision"]?.int64Value
        demo = value["demo"]?.boolValue
        placement = value["placement"]?.stringValue.map(Placement.init(rawValue:))
        let place = value["screen"]
        screen = [place?["type"], place?["id"], place?["name"]].compactMap { $0?.stringValue }.joined(separator: " ")
        key = value["key"]?.stringValue
        visitID = value["visitID"]?.stringValue
        campaignID = value["campaignID"]?.stringValue
        variantID = value["variantID"]?.stringValue
        arm = value["arm"]?.stringValue.map(Arm.init(rawValue:))
        switch value["preview"] {
        case .string(let token) where !token.isEmpty: preview = .token(token)
        case .bool(true): preview = .flag
        default: preview = nil
        }
        treatments = Self.claims(value["treatments"])
    }

    /// The fields that have a column, and those read from the JSON (empty unless given).
    init(
        sequence: Int64, eventID: String, type: EventType, installID: String, customerID: String?,
        correctedTimestamp: Int64?, configRevision: Int64?, placement: Placement?, visitID: String?,
        campaignID: String?, variantID: String?, arm: Arm?, demo: Bool? = nil, screen: String = "", key: String? = nil,
        preview: Preview? = nil, treatments: [Claim] = []
    ) {
        self.sequence = sequence
        self.eventID = eventID
        self.type = type
        self.installID = installID
        self.customerID = customerID
        self.correctedTimestamp = correctedTimestamp
        self.configRevision = configRevision
        self.placement = placement
        self.visitID = visitID
        self.campaignID = campaignID
        self.variantID = variantID
        self.arm = arm
        self.demo = demo
        self.screen = screen
        self.key = key
        self.preview = preview
        self.treatments = treatments
    }

    /// A purchase's claimed treatments, from its `treatments` array.
    static func claims(_ value: JSONValue?) -> [Claim] {
        (value?.arrayValue ?? []).compactMap { item in
            guard let campaignID = item["campaignID"]?.stringValue, let variantID = item["variantID"]?.stringValue
            else { return nil }
            return Claim(
                campaignID: campaignID, variantID: variantID,
                placement: item["placement"]?.stringValue.map(Placement.init(rawValue:)))
        }
    }

    /// Whether the event is of type `first`, or of `second`.
    func isOne(of first: EventType, _ second: EventType? = nil) -> Bool {
        // Two parameters, not a variadic list: every event asks, and a list was an array each time.
        type == first || type == second
    }

    /// `An exposure (sequence 12)`: how a message starts.
    /// Appended, not interpolated: with every visit violating, most events open a sentence.
    var kind: String {
        var text = Self.article(type.rawValue)
        text.reserveCapacity(40)
        text += " "
        text += type.rawValue
        text += " (sequence "
        text += String(sequence)
        text += ")"
        return text
    }

    /// `An` before a vowel, `A` otherwise, capitalised: messages start with it.
    static func article(_ word: String) -> String {
        switch word.utf8.first {
        case UInt8(ascii: "a"), UInt8(ascii: "e"), UInt8(ascii: "i"), UInt8(ascii: "o"), UInt8(ascii: "u"): "An"
        default: "A"
        }
    }
}
