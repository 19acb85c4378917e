import GronaMockJSON

extension ScenarioLoader {
    package static let engineOperations = ["kill", "revive", "replace", "rotate", "fault", "clearFaults", "skewClock"]

    static func steps(_ value: JSONValue?, at path: JSONPath, reader: inout ScenarioReader, nonEmpty: Bool) -> [Step] {
        (reader.array(value, at: path, what: "steps", nonEmpty: nonEmpty) ?? []).enumerated().compactMap {
            index, element in
            step(element, at: path.appending(index), reader: &reader)
        }
    }

    private static func step(_ value: JSONValue, at path: JSONPath, reader: inout ScenarioReader) -> Step? {
        guard let object = value.objectValue else {
            reader.problem(path, "a step must be an object with \"command\", \"engine\", \"check\" or \"repeat\"")
            return nil
        }
        switch reader.discriminator(object, at: path, kinds: ["command", "engine", "check", "repeat"], what: "a step") {
        case "command"?: return command(object, at: path, reader: &reader)
        case "engine"?: return engineStep(object, at: path, reader: &reader).map(Step.engine)
        case "check"?:
            for key in object.keys where key != "check" {
                reader.problem(path.appending(key), "a check step has only \"check\"")
            }
            return .check(
                expectationList(object["check"], at: path.appending("check"), reader: &reader, nonEmpty: true))
        case "repeat"?:
            _ = reader.object(
                value, at: path, allowed: ["repeat", "steps"], required: ["steps"], what: "a repeat step")
            let times = reader.integer(object["repeat"], at: path.appending("repeat"), in: 1...1000, what: "repeat")
            let inner = steps(object["steps"], at: path.appending("steps"), reader: &reader, nonEmpty: true)
            return times.map { .repeated(times: Int($0), steps: inner) }
        default: return nil
        }
    }

    private static func command(_ object: JSONObject, at path: JSONPath, reader: inout ScenarioReader) -> Step? {
        let commandPath = path.appending("command")
        guard let name = object["command"]?.stringValue, let command = ServiceCommand(rawValue: name) else {
            let known = ServiceCommand.allCases.map(\.rawValue).joined(separator: ", ")
            reader.problem(
                commandPath,
                "unknown command \(ScenarioReader.shown(object["command"] ?? .null)); the commands are \(known)")
            return nil
        }
        let (required, optional) = command.parameters
        var body: JSONObject = ["command": .string(name)]
        for member in object where member.key != "command" && member.key != "expect" {
            guard required.contains(member.key) || optional.contains(member.key) else {
                let takes = required + optional
                reader.problem(
                    path.appending(member.key),
                    "\(name) takes no \(ScenarioReader.quoted(member.key))"
                        + (takes.isEmpty ? "" : "; it takes \(takes.joined(separator: ", "))"))
                continue
            }
            body.set(member.key, member.value)
        }
        for parameter in required where object[parameter] == nil {
            reader.problem(path, "\(name) needs \(ScenarioReader.quoted(parameter))")
        }
        if command == .advanceTime {
            _ = reader.integer(object["ms"], at: path.appending("ms"), in: 0...86_400_000 * 366, what: "ms")
        }
        let expect = object["expect"].flatMap { resultExpectation($0, at: path.appending("expect"), reader: &reader) }
        return .command(name: command, body: body, expect: expect)
    }

    static func engineStep(_ object: JSONObject, at path: JSONPath, reader: inout ScenarioReader) -> EngineStep? {
        let operationPath = path.appending("engine")
        guard let operation = object["engine"]?.stringValue, engineOperations.contains(operation) else {
            reader.problem(
                operationPath,
                "unknown engine operation \(ScenarioReader.shown(object["engine"] ?? .null)); the operations are "
                    + engineOperations.joined(separator: ", "))
            return nil
        }
        func fields(_ allowed: [String], required: [String] = []) -> JSONObject? {
            reader.object(
                .object(object), at: path, allowed: ["engine"] + allowed, required: required,
                what: "engine \(ScenarioReader.quoted(operation))")
        }
        switch operation {
        case "kill", "revive":
            guard let fields = fields(["campaign"], required: ["campaign"]),
                let campaign = reader.string(fields["campaign"], at: path.appending("campaign"), what: "campaign")
            else { return nil }
            return operation == "kill" ? .kill(campaign: campaign) : .revive(campaign: campaign)
        case "replace":
            guard let fields = fields(["workspace", "allowInvalid"], required: ["workspace"]) else { return nil }
            guard let patch = fields["workspace"], patch.objectValue != nil else {
                reader.problem(path.appending("workspace"), "workspace must be a merge patch object")
                return nil
            }
            let allowInvalid = reader.boolean(
                fields["allowInvalid"], at: path.appending("allowInvalid"), what: "allowInvalid")
            return .replace(patch: patch, allowInvalid: allowInvalid ?? false)
        case "rotate":
            guard let fields = fields(["keys"], required: ["keys"]) else { return nil }
            guard let keys = fields["keys"]?.stringValue, keys == "config" || keys == "grants" else {
                reader.problem(path.appending("keys"), "keys must be \"config\" or \"grants\"")
                return nil
            }
            return .rotate(configKeys: keys == "config")
        case "fault":
            guard let fields = fields(["rule"], required: ["rule"]), let rule = fields["rule"] else { return nil }
            return faultRule(rule, at: path.appending("rule"), reader: &reader).map(EngineStep.fault)
        case "clearFaults":
            return fields([]) == nil ? nil : .clearFaults
        default:
            guard let fields = fields(["ms"], required: ["ms"]),
                let ms = reader.integer(
                    fields["ms"], at: path.appending("ms"), in: -86_400_000 * 366...86_400_000 * 366, what: "ms")
            else { return nil }
            return .skewClock(ms: ms)
        }
    }

    /// `{"when": {"request": matcher} | {"event": matcher}, "count": N, "do": [engine steps]}`.
    static func trigger(_ value: JSONValue, at path: JSONPath, reader: inout ScenarioReader) -> Trigger? {
        guard
            let object = reader.object(
                value, at: path, allowed: ["when", "count", "do"], required: ["when", "do"], what: "a trigger")
        else { return nil }
        let whenPath = path.appending("when")
        var condition: Trigger.Condition?
        if let when = reader.object(object["when"], at: whenPath, allowed: ["request", "event"], what: "when"),
            let kind = reader.discriminator(when, at: whenPath, kinds: ["request", "event"], what: "when")
        {
            if let matcher = fieldMatcher(when[kind], at: whenPath.appending(kind), reader: &reader) {
                condition = kind == "request" ? .request(matcher) : .event(matcher)
            }
        }
        let count = reader.integer(object["count"], at: path.appending("count"), in: 1...100_000, what: "count") ?? 1
        let doPath = path.appending("do")
        let actions = (reader.array(object["do"], at: doPath, what: "do", nonEmpty: true) ?? []).enumerated()
            .compactMap { index, element -> EngineStep? in
                guard let step = element.objectValue, step["engine"] != nil else {
                    reader.problem(
                        doPath.appending(index),
                        "a trigger does engine operations only ({\"engine\": …}): a command to the service cannot run "
                            + "while the service is waiting for grona-mock's answer")
                    return nil
                }
                return engineStep(step, at: doPath.appending(index), reader: &reader)
            }
        guard let condition else { return nil }
        return Trigger(condition: condition, count: Int(count), actions: actions, source: value)
    }
}
