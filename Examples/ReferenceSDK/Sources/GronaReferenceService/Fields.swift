import GronaReferenceSDK

/// Reads the members of a request body's object, each checked, with a sentence naming the member at fault.
struct Fields {
    let object: JSONObject
    /// Where this object is in the body, for messages (`events.`).
    let prefix: String

    init(_ json: JSON?, prefix: String = "", what: String = "the body") throws(ServiceError) {
        guard let object = json?.objectValue else { throw .badRequest("\(what) must be a JSON object") }
        self.object = object
        self.prefix = prefix
    }

    func string(_ key: String, maxBytes: Int = 1024) throws(ServiceError) -> String {
        guard let value = try optionalString(key, maxBytes: maxBytes) else {
            throw .badRequest("\(prefix)\(key) is required (a string)")
        }
        return value
    }

    func optionalString(_ key: String, maxBytes: Int = 1024) throws(ServiceError) -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let text = value.stringValue, (1...maxBytes).contains(text.utf8.count) else {
            throw .badRequest("\(prefix)\(key) must be a string of 1 to \(maxBytes) bytes")
        }
        return text
    }

    func integer(_ key: String, in range: ClosedRange<Int64>, default fallback: Int64? = nil) throws(ServiceError)
        -> Int64
    {
        guard let value = object[key], !value.isNull else {
            if let fallback { return fallback }
            throw .badRequest(
                "\(prefix)\(key) is required (an integer from \(range.lowerBound) to \(range.upperBound))")
        }
        guard let number = value.int64Value, range.contains(number) else {
            throw .badRequest("\(prefix)\(key) must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    func bool(_ key: String, default fallback: Bool? = nil) throws(ServiceError) -> Bool {
        guard let value = object[key], !value.isNull else {
            if let fallback { return fallback }
            throw .badRequest("\(prefix)\(key) is required (true or false)")
        }
        guard let flag = value.boolValue else { throw .badRequest("\(prefix)\(key) must be true or false") }
        return flag
    }

    func strings(_ key: String, required: Bool = false) throws(ServiceError) -> [String] {
        guard let value = object[key], !value.isNull else {
            if required { throw .badRequest("\(prefix)\(key) is required (a list of strings)") }
            return []
        }
        guard let items = value.arrayValue, items.count <= 10_000 else {
            throw .badRequest("\(prefix)\(key) must be a list of strings")
        }
        var strings: [String] = []
        for item in items {
            guard let text = item.stringValue else { throw .badRequest("\(prefix)\(key) must be a list of strings") }
            strings.append(text)
        }
        return strings
    }

    func nested(_ key: String) throws(ServiceError) -> Fields? {
        guard let value = object[key], !value.isNull else { return nil }
        return try Fields(value, prefix: "\(prefix)\(key).", what: "\(prefix)\(key)")
    }
}
