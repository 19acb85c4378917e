import GronaMockJSON

/// The claims of a grant (contract §6), in the order they are written.
package struct GrantClaims: Sendable, Equatable {
    package var issuer: String
    /// The workspace key.
    package var audience: String
    /// The customer id.
    package var subject: String
    /// Stable for one customer, campaign and variant within one grant window; single use is enforced on it.
    package var grantID: String
    package var issuedAt: Int64
    package var notBefore: Int64
    package var expiresAt: Int64
    package var campaignID: String
    package var variantID: String
    package var placement: String
    package var treatment: Treatment
    package var demo: Bool

    /// The payload's JSON bytes.
    package var json: [UInt8] {
        let object: JSONObject = [
            "iss": .string(issuer), "aud": .string(audience), "sub": .string(subject), "jti": .string(grantID),
            "iat": .number(JSONNumber(issuedAt)), "nbf": .number(JSONNumber(notBefore)),
            "exp": .number(JSONNumber(expiresAt)), "campaignID": .string(campaignID), "variantID": .string(variantID),
            "placement": .string(placement),
            "treatment": .object([
                "type": .string(treatment.type.rawValue), "valueMilli": .number(JSONNumber(treatment.valueMilli)),
            ]),
            "demo": .bool(demo),
        ]
        return JSONValue.object(object).serialized()
    }

    /// Reads claims back from a payload; nil when a claim is missing or of the wrong type.
    package init?(json: [UInt8]) {
        guard let object = try? JSONParser().parse(json).objectValue,
            let issuer = object["iss"]?.stringValue, let audience = object["aud"]?.stringValue,
            let subject = object["sub"]?.stringValue, let grantID = object["jti"]?.stringValue,
            let issuedAt = object["iat"]?.int64Value, let notBefore = object["nbf"]?.int64Value,
            let expiresAt = object["exp"]?.int64Value, let campaignID = object["campaignID"]?.stringValue,
            let variantID = object["variantID"]?.stringValue, let placement = object["placement"]?.stringValue,
            let type = object["treatment"]?["type"]?.stringValue,
            let valueMilli = object["treatment"]?["valueMilli"]?.int64Value, let demo = object["demo"]?.boolValue
        else { return nil }
        self.init(
            issuer: issuer, audience: audience, subject: subject, grantID: grantID, issuedAt: issuedAt,
            notBefore: notBefore, expiresAt: expiresAt, campaignID: campaignID, variantID: variantID,
            placement: placement, treatment: Treatment(type: TreatmentType(rawValue: type), valueMilli: valueMilli),
            demo: demo)
    }

    package init(
        issuer: String, audience: String, subject: String, grantID: String, issuedAt: Int64, notBefore: Int64,
        expiresAt: Int64, campaignID: String, variantID: String, placement: String, treatment: Treatment, demo: Bool
    ) {
        self.issuer = issuer
        self.audience = audience
        self.subject = subject
        self.grantID = grantID
        self.issuedAt = issuedAt
        self.notBefore = notBefore
        self.expiresAt = expiresAt
        self.campaignID = campaignID
        self.variantID = variantID
        self.placement = placement
        self.treatment = treatment
        self.demo = demo
    }
}
