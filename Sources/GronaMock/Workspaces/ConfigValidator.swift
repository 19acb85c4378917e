import GronaMockJSON

/// Validates a workspace's `config`: settings, campaigns and previews (contract §4). Paths are written as
/// the SDK sees them in the payload: `campaigns[2].placement`, not `config.campaigns[2].placement`.
struct ConfigValidator {
    struct Body {
        var demoMode = false
        var holdout: Holdout?
        var campaigns: [Campaign] = []
        var object = JSONObject()
    }

    var problems: ProblemCollector
    private var imageHosts: [String] = []

    init(problems: ProblemCollector) {
        self.problems = problems
    }

    mutating func validate(_ value: JSONValue?) -> Body {
        var body = Body()
        guard var config = problems.object(value, at: JSONPath.root.appending("config")) else { return body }
        // The server's own members of the signed payload: a config that set them would override the revision,
        // time or workspace that the SDK trusts (contract §4).
        for reserved in ConfigurationSigner.serverMembers where config[reserved] != nil {
            problems.error(.root.appending(reserved), "is set by the server in the signed configuration; remove it")
        }
        problems.unknownMembers(
            of: config, at: .root,
            known: Set(["demoMode", "settings", "campaigns", "previews"] + ConfigurationSigner.serverMembers))

        body.demoMode = problems.bool(config["demoMode"], at: .root.appending("demoMode"), required: false) ?? false
        config.set("demoMode", .bool(body.demoMode))

        let settings = validateSettings(config["settings"], holdout: &body.holdout)
        config.set("settings", .object(settings))

        let campaignsPath = JSONPath.root.appending("campaigns")
        var seen: Set<String> = []
        for (index, item) in (problems.array(config["campaigns"], at: campaignsPath) ?? []).enumerated() {
            var campaignValidator = CampaignValidator(problems: problems, imageHosts: imageHosts)
            let campaign = campaignValidator.validate(item, at: campaignsPath.appending(index))
            problems = campaignValidator.problems
            guard let campaign else { continue }
            if !seen.insert(campaign.id).inserted {
                problems.error(
                    campaignsPath.appending(index).appending("id"), "campaign \"\(campaign.id)\" is defined twice")
                continue
            }
            body.campaigns.append(campaign)
        }
        if config["campaigns"] == nil { config.set("campaigns", .array([])) }

        validatePreviews(config["previews"], campaigns: body.campaigns)
        if config["previews"] == nil { config.set("previews", .array([])) }
        // `100.0` is the integer 100 as JSON Schema reads it, and is served as `100` (`canonicalizingIntegers`).
        body.object = JSONValue.object(config).canonicalizingIntegers().objectValue ?? config
        return body
    }

    /// Settings with their defaults written in, so the SDK never has to guess them.
    private mutating func validateSettings(_ value: JSONValue?, holdout: inout Holdout?) -> JSONObject {
        let path = JSONPath.root.appending("settings")
        var settings = problems.object(value, at: path, required: false) ?? JSONObject()
        problems.unknownMembers(of: settings, at: path, known: ["maxComponentsPerScreen", "imageHosts", "holdout"])

        let cap = problems.integer(
            settings["maxComponentsPerScreen"], at: path.appending("maxComponentsPerScreen"), in: 1...10,
            required: false)
        settings.set("maxComponentsPerScreen", .number(JSONNumber(cap ?? 3)))

        let hostsPath = path.appending("imageHosts")
        for (index, item) in (problems.array(settings["imageHosts"], at: hostsPath, required: false) ?? []).enumerated()
        {
            guard let host = problems.string(item, at: hostsPath.appending(index)) else { continue }
            guard Self.isHostName(host) else {
                problems.error(
                    hostsPath.appending(index), "\(Quote.text(host)) is not a host name (like images.example.com)")
                continue
            }
            if imageHosts.contains(host) {
                problems.warning(hostsPath.appending(index), "\"\(host)\" is listed twice")
                continue
            }
            imageHosts.append(host)
        }
        if settings["imageHosts"] == nil { settings.set("imageHosts", .array([])) }

        let holdoutPath = path.appending("holdout")
        if let object = problems.object(settings["holdout"], at: holdoutPath, required: false) {
            problems.unknownMembers(of: object, at: holdoutPath, known: ["salt", "weight"])
            let salt = problems.string(object["salt"], at: holdoutPath.appending("salt"))
            let weight = problems.integer(object["weight"], at: holdoutPath.appending("weight"), in: 0...10_000)
            if let salt, let weight { holdout = Holdout(salt: salt, weight: weight) }
        }
        return settings
    }

    private mutating func validatePreviews(_ value: JSONValue?, campaigns: [Campaign]) {
        let path = JSONPath.root.appending("previews")
        var tokens: Set<String> = []
        for (index, item) in (problems.array(value, at: path, required: false) ?? []).enumerated() {
            let itemPath = path.appending(index)
            guard let pin = problems.object(item, at: itemPath) else { continue }
            problems.unknownMembers(of: pin, at: itemPath, known: ["token", "campaignID", "variantID"])
            if let token = problems.string(pin["token"], at: itemPath.appending("token")) {
                if !IdentifierKind.previewToken.isValid(token) {
                    problems.identifierError(itemPath.appending("token"), .previewToken, token)
                } else if !tokens.insert(token).inserted {
                    problems.error(itemPath.appending("token"), "token \"\(token)\" is used twice")
                }
            }
            let campaignID = problems.string(pin["campaignID"], at: itemPath.appending("campaignID"))
            let variantID = problems.string(pin["variantID"], at: itemPath.appending("variantID"))
            guard let campaignID, let variantID else { continue }
            guard let campaign = campaigns.first(where: { $0.id == campaignID }) else {
                problems.error(
                    itemPath.appending("campaignID"), "no campaign \(Quote.text(campaignID)) in this workspace")
                continue
            }
            guard let variant = campaign.variants.first(where: { $0.id == variantID }) else {
                problems.error(
                    itemPath.appending("variantID"),
                    "campaign \"\(campaignID)\" has no variant \(Quote.text(variantID))")
                continue
            }
            if variant.isControl {
                problems.error(itemPath.appending("variantID"), "\"\(variantID)\" is a control: a preview pins content")
            }
        }
    }

    /// Lowercase DNS names: letters, digits and hyphens in dot-separated labels.
    static func isHostName(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        guard text.utf8.count <= 253, !labels.isEmpty else { return false }
        return labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.utf8.allSatisfy {
                    ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z"))
                        || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                        || $0 == UInt8(ascii: "-")
                }
        }
    }
}
