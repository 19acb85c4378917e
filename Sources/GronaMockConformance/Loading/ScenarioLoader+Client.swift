import GronaMockJSON

extension ScenarioLoader {
    static let clientFields = [
        "configKeys", "grantKeys", "bundledConfiguration", "installID", "customerID", "previewToken", "events",
        "configuration", "clock", "app",
    ]

    /// The `client` object: what the runner does not fill in by itself.
    static func clientSettings(_ value: JSONValue?, at path: JSONPath, reader: inout ScenarioReader) -> ClientSettings?
    {
        var settings = ClientSettings()
        guard let value else { return settings }
        guard let object = reader.object(value, at: path, allowed: clientFields, what: "client") else { return nil }
        settings.configKeys = keyList(object["configKeys"], at: path.appending("configKeys"), reader: &reader)
        settings.grantKeys = keyList(object["grantKeys"], at: path.appending("grantKeys"), reader: &reader)
        if let installID = reader.string(object["installID"], at: path.appending("installID"), what: "installID") {
            settings.installID = installID
        }
        settings.customerID = optionalString(object["customerID"], at: path.appending("customerID"), reader: &reader)
        settings.previewToken = optionalString(
            object["previewToken"], at: path.appending("previewToken"), reader: &reader)
        if let bundled = object["bundledConfiguration"] {
            settings.bundle = bundle(bundled, at: path.appending("bundledConfiguration"), reader: &reader)
        }
        let optionFields: [(String, [String])] = [
            ("events", ["maxBatchSize", "maxAgeMs", "gzip", "maxQueued"]), ("configuration", ["pollIntervalMs"]),
            ("app", ["id", "version"]),
        ]
        for (name, fields) in optionFields {
            guard let given = object[name] else { continue }
            let optionPath = path.appending(name)
            guard let option = reader.object(given, at: optionPath, allowed: fields, what: name) else { continue }
            for member in option {
                if member.key == "gzip" {
                    _ = reader.boolean(member.value, at: optionPath.appending("gzip"), what: "gzip")
                } else if name == "app" {
                    _ = reader.string(member.value, at: optionPath.appending(member.key), what: member.key)
                } else {
                    _ = reader.integer(
                        member.value, at: optionPath.appending(member.key), in: 1...86_400_000 * 366, what: member.key)
                }
            }
            settings.options.set(name, .object(option))
        }
        if let clock = object["clock"],
            let clockObject = reader.object(clock, at: path.appending("clock"), allowed: ["startMs"], what: "clock"),
            let start = reader.integer(
                clockObject["startMs"], at: path.appending("clock").appending("startMs"),
                in: 0...253_402_300_799_999, what: "startMs")
        {
            settings.startMs = start
        }
        return settings
    }

    private static func keyList(_ value: JSONValue?, at path: JSONPath, reader: inout ScenarioReader) -> [String]? {
        guard let elements = reader.array(value, at: path, what: "a key list") else { return nil }
        return elements.enumerated().compactMap { index, element in
            reader.string(element, at: path.appending(index), what: "a key id")
        }
    }

    private static func optionalString(_ value: JSONValue?, at path: JSONPath, reader: inout ScenarioReader) -> String?
    {
        guard let value, !value.isNull else { return nil }
        return reader.string(value, at: path, what: path.components.last.map { "\($0)" } ?? "the value")
    }

    /// `"served"`, or `{"workspace": patch, "otherWorkspace": bool, "tampered": bool, "revisionAhead": n}`.
    private static func bundle(_ value: JSONValue, at path: JSONPath, reader: inout ScenarioReader)
        -> BundledConfiguration?
    {
        if value.stringValue == "served" { return .served }
        guard
            let object = reader.object(
                value, at: path, allowed: ["workspace", "otherWorkspace", "tampered", "revisionAhead"],
                what: "bundledConfiguration (\"served\", or an object)")
        else { return nil }
        let other = reader.boolean(
            object["otherWorkspace"], at: path.appending("otherWorkspace"), what: "otherWorkspace")
        let tampered = reader.boolean(object["tampered"], at: path.appending("tampered"), what: "tampered")
        let patch = object["workspace"] ?? [:]
        if patch.objectValue == nil {
            reader.problem(path.appending("workspace"), "workspace must be a merge patch object")
        }
        let ahead = reader.integer(
            object["revisionAhead"], at: path.appending("revisionAhead"), in: 1...1_000_000, what: "revisionAhead")
        return .other(patch: patch, otherWorkspace: other ?? false, tampered: tampered ?? false, revisionAhead: ahead)
    }
}
