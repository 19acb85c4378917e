import GronaMockHTTP
import GronaMockJSON

/// Validates slot content: components (Grona-rendered) and decisions (host-rendered), with their images and
/// actions (contract §4).
struct ContentValidator {
    var problems: ProblemCollector
    let imageHosts: [String]

    // MARK: - Components

    /// The component's type and, for an offer, its treatment; nil when it cannot be used.
    mutating func component(_ value: JSONValue, at path: JSONPath) -> (type: ComponentType, treatment: Treatment?)? {
        guard let object = problems.object(value, at: path) else { return nil }
        guard let type = problems.oneOf(object["type"], at: path.appending("type"), ComponentType.self) else {
            return nil
        }
        var treatment: Treatment?
        switch type {
        case .banner:
            problems.unknownMembers(of: object, at: path, known: ["type", "title", "body", "image", "cta"])
            text(object, "title", at: path)
            text(object, "body", at: path, required: false)
            if let image = object["image"] { self.image(image, at: path.appending("image")) }
            if let cta = problems.object(object["cta"], at: path.appending("cta"), required: false) {
                let ctaPath = path.appending("cta")
                problems.unknownMembers(of: cta, at: ctaPath, known: ["label", "action"])
                text(cta, "label", at: ctaPath)
                action(cta["action"], at: ctaPath.appending("action"))
            }
        case .progress:
            problems.unknownMembers(
                of: object, at: path, known: ["type", "title", "thresholdMinor", "remainingText", "reachedText"])
            positive(object["thresholdMinor"], at: path.appending("thresholdMinor"))
            text(object, "title", at: path, required: false)
            text(object, "remainingText", at: path)
            text(object, "reachedText", at: path)
        case .offer:
            problems.unknownMembers(of: object, at: path, known: ["type", "title", "body", "treatment"])
            text(object, "title", at: path)
            text(object, "body", at: path, required: false)
            treatment = self.treatment(object["treatment"], at: path.appending("treatment"))
            if treatment == nil { return nil }
        case .message:
            problems.unknownMembers(of: object, at: path, known: ["type", "title", "body", "tone"])
            text(object, "title", at: path, required: false)
            text(object, "body", at: path)
            _ = problems.oneOf(object["tone"], at: path.appending("tone"), Tone.self, required: false)
        case .unknown:
            return nil  // never: `oneOf` answers known types only
        }
        return (type, treatment)
    }

    private mutating func treatment(_ value: JSONValue?, at path: JSONPath) -> Treatment? {
        guard let object = problems.object(value, at: path) else { return nil }
        problems.unknownMembers(of: object, at: path, known: ["type", "valueMilli"])
        let type = problems.oneOf(object["type"], at: path.appending("type"), TreatmentType.self)
        let valuePath = path.appending("valueMilli")
        var value = problems.integer(object["valueMilli"], at: valuePath)
        switch (type, value) {
        case (.percentOff?, let milli?) where !(1...100_000).contains(milli):
            problems.error(valuePath, "must be from 1 to 100000 for percent_off (0.001 % to 100 %), not \(milli)")
            value = nil
        case (.amountOff?, let milli?) where milli < 1:
            problems.error(valuePath, "must be greater than 0 for amount_off, not \(milli)")
            value = nil
        case (.freeDelivery?, let milli?) where milli != 0:
            problems.error(valuePath, "must be 0 for free_delivery, not \(milli)")
            value = nil
        default:
            break
        }
        guard let type, let value else { return nil }
        return Treatment(type: type, valueMilli: value)
    }

    /// `asset://img/<path>`, or an `https` URL on one of `settings.imageHosts`.
    private mutating func image(_ value: JSONValue, at path: JSONPath) {
        guard let url = problems.string(value, at: path) else { return }
        if url.hasPrefix("asset://img/") {
            let assetPath = url.dropFirst("asset://img/".count)
            let characters = assetPath.utf8.allSatisfy {
                ($0 | 0x20 >= UInt8(ascii: "a") && $0 | 0x20 <= UInt8(ascii: "z"))
                    || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                    || [UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "/")].contains($0)
            }
            if assetPath.isEmpty || !characters {
                problems.error(path, "\(Quote.text(url)) is not an asset path (letters, digits, _ - . /)")
            } else if assetPath.split(separator: "/", omittingEmptySubsequences: false).contains(where: {
                $0.isEmpty || $0 == "." || $0 == ".."
            }) {
                problems.error(path, "\(Quote.text(url)): an asset path has no empty, . or .. segments")
            }
            return
        }
        guard url.hasPrefix("https://") else {
            problems.error(path, "\(Quote.text(url)) must be asset://img/<path> or an https URL")
            return
        }
        guard url.utf8.allSatisfy(Self.isURLByte) else {
            problems.error(
                path, "\(Quote.text(url)) holds characters a URL cannot (spaces, controls, quotes, non-ASCII)")
            return
        }
        let afterScheme = url.dropFirst("https://".count)
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else {
            problems.error(path, "\(Quote.text(url)) has user info before its host, which hides the real host")
            return
        }
        let hostAndPort = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let host = String(hostAndPort.first ?? "").lowercased()
        if hostAndPort.count == 2, hostAndPort[1].isEmpty || !hostAndPort[1].utf8.allSatisfy(HeadParser.isDigit) {
            problems.error(path, "\(Quote.text(url)) has a port that is not a number")
            return
        }
        guard imageHosts.contains(host) else {
            let allowed =
                imageHosts.isEmpty ? "settings.imageHosts is empty" : "allowed: \(imageHosts.joined(separator: ", "))"
            problems.error(path, "host \(Quote.text(host)) is not in settings.imageHosts (\(allowed))")
            return
        }
    }

    /// RFC 3986 §2: unreserved, reserved and percent characters.
    private static func isURLByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Array("-._~:/?#[]@!$&'()*+,;=%".utf8).contains(byte)
        }
    }

    /// `add` with lines, or `navigate` with a route.
    private mutating func action(_ value: JSONValue?, at path: JSONPath) {
        guard let object = problems.object(value, at: path) else { return }
        guard let type = problems.oneOf(object["type"], at: path.appending("type"), ActionType.self) else { return }
        if type == .add {
            problems.unknownMembers(of: object, at: path, known: ["type", "lines"])
            let linesPath = path.appending("lines")
            for (index, item) in (problems.array(object["lines"], at: linesPath, nonEmpty: true) ?? []).enumerated() {
                let linePath = linesPath.appending(index)
                guard let line = problems.object(item, at: linePath) else { continue }
                problems.unknownMembers(of: line, at: linePath, known: ["productID", "quantity"])
                text(line, "productID", at: linePath)
                _ = problems.integer(line["quantity"], at: linePath.appending("quantity"), in: 1...20)
            }
            return
        }
        problems.unknownMembers(of: object, at: path, known: ["type", "route"])
        let routePath = path.appending("route")
        guard let route = problems.object(object["route"], at: routePath) else { return }
        problems.unknownMembers(of: route, at: routePath, known: ["type", "id"])
        guard let routeType = problems.oneOf(route["type"], at: routePath.appending("type"), RouteType.self) else {
            return
        }
        if routeType.takesID {
            text(route, "id", at: routePath)
        } else if route["id"] != nil {
            problems.error(routePath.appending("id"), "a \(routeType) route takes no id")
        }
    }

    // MARK: - Decisions

    /// The decision's type; nil when it cannot be used. A type from a newer SDK is a warning, and is kept.
    mutating func decision(_ value: JSONValue, at path: JSONPath) -> DecisionType? {
        guard let object = problems.object(value, at: path) else { return nil }
        guard let name = problems.string(object["type"], at: path.appending("type")) else { return nil }
        let type = DecisionType(rawValue: name)
        let copy = ["title", "subtitle", "badge", "ctaLabel"]
        if case .unknown = type {
            guard Identifiers.isSnakeCase(name) else {
                problems.error(
                    path.appending("type"),
                    "\(Quote.text(name)) is not a decision type: \(DecisionType.knownNames), "
                        + "or a newer SDK's type in snake_case")
                return nil
            }
            problems.warning(
                path.appending("type"),
                "\"\(name)\" is not a decision type this SDK knows (\(DecisionType.knownNames)); "
                    + "older SDKs show no decision")
            // A newer SDK may add fields, so none is unknown here; the shared ones keep their shapes.
            for field in copy { text(object, field, at: path, required: false) }
            extras(object["extras"], at: path.appending("extras"))
            if object["products"] != nil { products(object["products"], at: path.appending("products")) }
            return type
        }
        problems.unknownMembers(
            of: object, at: path,
            known: Set(copy + ["type", "extras", type == .substitute ? "substitutes" : "products"]))
        for field in copy { text(object, field, at: path, required: false) }
        extras(object["extras"], at: path.appending("extras"))
        if type == .substitute {
            let substitutesPath = path.appending("substitutes")
            guard let substitutes = problems.object(object["substitutes"], at: substitutesPath) else { return nil }
            if substitutes.isEmpty { problems.error(substitutesPath, "must name at least one out-of-stock product") }
            for member in substitutes {
                if member.key.isEmpty {
                    problems.error(
                        substitutesPath.appending(member.key), "the out-of-stock product id must not be empty")
                }
                products(member.value, at: substitutesPath.appending(member.key))
            }
        } else {
            products(object["products"], at: path.appending("products"))
        }
        return type
    }

    private mutating func products(_ value: JSONValue?, at path: JSONPath) {
        for (index, item) in (problems.array(value, at: path, nonEmpty: true) ?? []).enumerated() {
            let itemPath = path.appending(index)
            guard let product = problems.object(item, at: itemPath) else { continue }
            problems.unknownMembers(of: product, at: itemPath, known: ["productID", "quantity", "label"])
            text(product, "productID", at: itemPath)
            _ = problems.integer(product["quantity"], at: itemPath.appending("quantity"), in: 1...20, required: false)
            text(product, "label", at: itemPath, required: false)
        }
    }

    /// `extras` is string to string: hosts read hints from it, so any key is allowed, but not any value.
    private mutating func extras(_ value: JSONValue?, at path: JSONPath) {
        guard let extras = problems.object(value, at: path, required: false) else { return }
        for member in extras where member.value.stringValue == nil {
            problems.error(path.appending(member.key), "extras values must be strings, not \(member.value.typeName)")
        }
    }

    private mutating func positive(_ value: JSONValue?, at path: JSONPath) {
        if let number = problems.integer(value, at: path), number < 1 {
            problems.error(path, "must be greater than 0, not \(number)")
        }
    }

    private mutating func text(_ object: JSONObject, _ field: String, at path: JSONPath, required: Bool = true) {
        _ = problems.string(object[field], at: path.appending(field), required: required)
    }
}
