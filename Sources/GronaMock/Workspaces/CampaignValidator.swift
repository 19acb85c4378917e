import GronaMockJSON

/// Validates one campaign: identity, status, placement, assignment, schedule, targeting and variants.
struct CampaignValidator {
    var problems: ProblemCollector
    let imageHosts: [String]

    private static let knownFields: Set<String> = [
        "id", "name", "status", "priority", "placement", "assignment", "schedule", "targeting", "variants",
    ]

    mutating func validate(_ value: JSONValue, at path: JSONPath) -> Campaign? {
        guard let object = problems.object(value, at: path) else { return nil }
        problems.unknownMembers(of: object, at: path, known: Self.knownFields)

        let id = problems.string(object["id"], at: path.appending("id"))
        if let id, !IdentifierKind.campaignID.isValid(id) {
            problems.identifierError(path.appending("id"), .campaignID, id)
        }
        _ = problems.string(object["name"], at: path.appending("name"), required: false, nonEmpty: false)
        let status = problems.oneOf(object["status"], at: path.appending("status"), Campaign.Status.self)
        let priority = problems.integer(object["priority"], at: path.appending("priority"))
        let placement = problems.oneOf(object["placement"], at: path.appending("placement"), Placement.self)
        let assignment = readAssignment(object["assignment"], at: path.appending("assignment"))
        let (startsAt, endsAt) = readSchedule(object["schedule"], at: path.appending("schedule"))
        if let targeting = object["targeting"] {
            var rules = TargetingValidator(problems: problems)
            rules.validate(targeting, at: path.appending("targeting"), depth: 1)
            problems = rules.problems
        }
        let variants = readVariants(object["variants"], at: path.appending("variants"), placement: placement)

        if let assignment, assignment.unit == .install, variants.contains(where: { $0.treatment != nil }) {
            problems.error(
                path.appending("assignment").appending("unit"), "a campaign with an offer must use \"customer\"")
        }
        // Returned even when other fields are wrong (those are errors already), so that previews and other
        // references to it do not report a second, false problem. Unknown parts take inert values.
        guard let id else { return nil }
        return Campaign(
            id: id, status: status ?? .killed, priority: priority ?? 0,
            placement: placement ?? .unknown(""), assignmentUnit: assignment?.unit ?? .customer,
            salt: assignment?.salt ?? "",
            startsAt: startsAt, endsAt: endsAt, variants: variants)
    }

    private mutating func readAssignment(
        _ value: JSONValue?, at path: JSONPath
    ) -> (unit: Campaign.AssignmentUnit, salt: String)? {
        guard let object = problems.object(value, at: path) else { return nil }
        problems.unknownMembers(of: object, at: path, known: ["unit", "salt"])
        let unit = problems.oneOf(object["unit"], at: path.appending("unit"), Campaign.AssignmentUnit.self)
        let salt = problems.string(object["salt"], at: path.appending("salt"))
        guard let unit, let salt else { return nil }
        return (unit, salt)
    }

    private mutating func readSchedule(_ value: JSONValue?, at path: JSONPath) -> (Int64?, Int64?) {
        guard let object = problems.object(value, at: path, required: false) else { return (nil, nil) }
        problems.unknownMembers(of: object, at: path, known: ["startsAt", "endsAt"])
        let startsAt = unixSeconds(object["startsAt"], at: path.appending("startsAt"))
        let endsAt = unixSeconds(object["endsAt"], at: path.appending("endsAt"))
        if let startsAt, let endsAt, startsAt >= endsAt {
            problems.error(path.appending("endsAt"), "must be after startsAt (\(startsAt)), not \(endsAt)")
        }
        return (startsAt, endsAt)
    }

    /// Unix seconds up to the year 3000; beyond that the value is almost surely milliseconds.
    private mutating func unixSeconds(_ value: JSONValue?, at path: JSONPath) -> Int64? {
        guard let seconds = problems.integer(value, at: path, required: false) else { return nil }
        guard seconds >= 0 else {
            problems.error(path, "must be Unix seconds (0 or more), not \(seconds)")
            return nil
        }
        guard seconds <= 32_503_680_000 else {
            problems.error(path, "must be Unix seconds; \(seconds) looks like milliseconds")
            return nil
        }
        return seconds
    }

    private mutating func readVariants(_ value: JSONValue?, at path: JSONPath, placement: Placement?) -> [Variant] {
        guard let list = problems.array(value, at: path, nonEmpty: true) else { return [] }
        var variants: [Variant] = []
        var total: Int64 = 0
        var weightsKnown = true
        for (index, item) in list.enumerated() {
            let itemPath = path.appending(index)
            guard let object = problems.object(item, at: itemPath) else {
                weightsKnown = false
                continue
            }
            problems.unknownMembers(
                of: object, at: itemPath, known: ["id", "weight", "control", "component", "decision"])
            let id = problems.string(object["id"], at: itemPath.appending("id"))
            if let id, !IdentifierKind.variantID.isValid(id) {
                problems.identifierError(itemPath.appending("id"), .variantID, id)
            } else if let id, variants.contains(where: { $0.id == id }) {
                problems.error(itemPath.appending("id"), "variant \"\(id)\" is defined twice")
            }
            let weight = problems.integer(object["weight"], at: itemPath.appending("weight"), in: 0...10_000)
            if let weight { total += weight } else { weightsKnown = false }
            // A variant with broken content is still recorded (without it), so references to it stay quiet.
            var variant =
                readContent(object, at: itemPath, placement: placement)
                ?? Variant(id: "", weight: 0, isControl: false)
            if let id, !variants.contains(where: { $0.id == id }) {
                variant.id = id
                variant.weight = weight ?? 0
                variants.append(variant)
            }
        }
        if weightsKnown && !list.isEmpty && total != 10_000 {
            problems.error(path, "weights must sum to 10000 (buckets out of 10,000), not \(total)")
        }
        return variants
    }

    /// A variant is a control, or carries exactly one of `component` and `decision`.
    private mutating func readContent(_ object: JSONObject, at path: JSONPath, placement: Placement?) -> Variant? {
        let controlFlag = problems.bool(object["control"], at: path.appending("control"), required: false)
        if object["control"] != nil && controlFlag == nil { return nil }  // reported; anything more would guess
        let control = controlFlag ?? false
        let component = object["component"]
        let decision = object["decision"]
        var variant = Variant(id: "", weight: 0, isControl: control)
        switch (control, component, decision) {
        case (true, nil, nil):
            return variant
        case (true, _, _):
            problems.error(path, "a control variant has no component or decision")
            return nil
        case (false, nil, nil):
            problems.error(path, "needs a component or a decision, or \"control\": true")
            return nil
        case (false, .some, .some):
            problems.error(path, "has both a component and a decision; a variant carries exactly one")
            return nil
        case (false, let component?, nil):
            var content = ContentValidator(problems: problems, imageHosts: imageHosts)
            let result = content.component(component, at: path.appending("component"))
            problems = content.problems
            if placement == .cartLine {
                problems.error(path.appending("component"), "cart_line carries only substitute decisions")
            }
            variant.componentType = result?.type
            variant.treatment = result?.treatment
            return result == nil ? nil : variant
        case (false, nil, let decision?):
            var content = ContentValidator(problems: problems, imageHosts: imageHosts)
            let type = content.decision(decision, at: path.appending("decision"))
            problems = content.problems
            if let type {
                if type == .substitute && placement != nil && placement != .cartLine {
                    problems.error(path.appending("decision").appending("type"), "substitute appears only on cart_line")
                } else if type != .substitute && placement == .cartLine {
                    problems.error(
                        path.appending("decision").appending("type"),
                        "cart_line carries only substitute decisions, not \(Quote.text(type.rawValue))")
                }
            }
            variant.decisionType = type
            return type == nil ? nil : variant
        }
    }
}
