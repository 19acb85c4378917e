import GronaMock
import GronaMockJSON

/// Reads scenario files (docs/conformance.md): the JSON is parsed with its locations, every field is checked,
/// and a file with any problem is refused whole, with each problem at its path and line.
package enum ScenarioLoader {
    static let topFields = [
        "$schema", "name", "area", "description", "requires", "workspace", "allowInvalidWorkspace", "client", "setup",
        "steps", "triggers", "expect",
    ]

    /// The scenario in `bytes`, read from `file` (named in the errors).
    package static func load(_ bytes: [UInt8], file: String) throws(ScenarioFileError) -> Scenario {
        let value: JSONValue
        let locations: JSONLocations
        do {
            (value, locations) = try JSONParser().parseLocating(bytes)
        } catch {
            throw ScenarioFileError(
                file: file, problems: [.init(line: error.line, path: "", message: "not JSON: \(error.reason)")])
        }
        var reader = ScenarioReader()
        let scenario = read(value, reader: &reader, source: file)
        guard reader.problems.isEmpty, let scenario else {
            throw reader.problems.error(file: file, locations: locations)
        }
        return scenario
    }

    private static func read(_ value: JSONValue, reader: inout ScenarioReader, source: String) -> Scenario? {
        let root = JSONPath.root
        guard
            let object = reader.object(
                value, at: root, allowed: topFields, required: ["name", "area", "description", "steps"],
                what: "a scenario")
        else { return nil }
        let name = reader.name(object["name"], at: root.appending("name"), what: "name")
        let area = reader.name(object["area"], at: root.appending("area"), what: "area")
        let description = reader.string(object["description"], at: root.appending("description"), what: "description")
        let requires = capabilities(object["requires"], at: root.appending("requires"), reader: &reader)
        if let workspace = object["workspace"], workspace.objectValue == nil {
            reader.problem(
                root.appending("workspace"), "workspace must be an object (a merge patch of the base workspace)")
        }
        let allowInvalid =
            reader.boolean(
                object["allowInvalidWorkspace"], at: root.appending("allowInvalidWorkspace"),
                what: "allowInvalidWorkspace")
            ?? false
        let client = clientSettings(object["client"], at: root.appending("client"), reader: &reader)
        let (faults, skew) = setup(object["setup"], at: root.appending("setup"), reader: &reader)
        let steps = self.steps(object["steps"], at: root.appending("steps"), reader: &reader, nonEmpty: true)
        let triggers = (reader.array(object["triggers"], at: root.appending("triggers"), what: "triggers") ?? [])
            .enumerated().compactMap { index, element in
                trigger(element, at: root.appending("triggers").appending(index), reader: &reader)
            }
        let expectations = expectationList(object["expect"], at: root.appending("expect"), reader: &reader)
        checkCapabilities(steps, requires: requires, reader: &reader)
        guard let name, let area, let description, let client else { return nil }
        return Scenario(
            name: name, area: area, description: description, requires: requires, workspace: object["workspace"],
            allowInvalidWorkspace: allowInvalid, client: client, faults: faults, clockSkewMs: skew, steps: steps,
            triggers: triggers, expectations: expectations, source: source)
    }

    private static func capabilities(_ value: JSONValue?, at path: JSONPath, reader: inout ScenarioReader)
        -> [Capability]
    {
        let names = Capability.allCases.map(\.rawValue).joined(separator: ", ")
        return (reader.array(value, at: path, what: "requires") ?? []).enumerated().compactMap { index, element in
            guard let capability = element.stringValue.flatMap(Capability.init(rawValue:)) else {
                reader.problem(
                    path.appending(index),
                    "unknown capability \(ScenarioReader.shown(element)); the capabilities are \(names)")
                return nil
            }
            return capability
        }
    }

    /// A command whose capability the scenario does not require would fail against a service that lacks it,
    /// instead of being skipped: refused when loaded.
    private static func checkCapabilities(_ steps: [Step], requires: [Capability], reader: inout ScenarioReader) {
        func commands(_ steps: [Step]) -> [ServiceCommand] {
            steps.flatMap { step -> [ServiceCommand] in
                switch step {
                case .command(let name, _, _): [name]
                case .repeated(_, let inner): commands(inner)
                case .engine, .check: []
                }
            }
        }
        for command in Set(commands(steps).map(\.rawValue)).sorted() {
            guard let needed = ServiceCommand(rawValue: command)?.capability, !requires.contains(needed) else {
                continue
            }
            reader.problem(
                JSONPath.root.appending("requires"),
                "the steps use \(ScenarioReader.quoted(command)), so requires must list \(ScenarioReader.quoted(needed.rawValue))"
            )
        }
    }

    private static func setup(_ value: JSONValue?, at path: JSONPath, reader: inout ScenarioReader) -> (
        [JSONValue], Int64
    ) {
        guard let value else { return ([], 0) }
        guard let object = reader.object(value, at: path, allowed: ["faults", "clockSkewMs"], what: "setup") else {
            return ([], 0)
        }
        let faults = (reader.array(object["faults"], at: path.appending("faults"), what: "faults") ?? [])
            .enumerated().compactMap { index, rule in
                faultRule(rule, at: path.appending("faults").appending(index), reader: &reader)
            }
        let skew = reader.integer(
            object["clockSkewMs"], at: path.appending("clockSkewMs"), in: -86_400_000 * 366...86_400_000 * 366,
            what: "clockSkewMs")
        return (faults, skew ?? 0)
    }

    /// A fault rule as `POST /_mock/faults` takes it; the runner adds the test's workspace.
    static func faultRule(_ value: JSONValue, at path: JSONPath, reader: inout ScenarioReader) -> JSONValue? {
        guard let object = value.objectValue else {
            reader.problem(path, "a fault rule must be an object, as POST /_mock/faults takes it")
            return nil
        }
        if object["workspace"] != nil {
            reader.problem(
                path.appending("workspace"),
                "a scenario's fault rules are scoped to its own workspace; leave workspace out")
            return nil
        }
        var scoped = object
        scoped.set("workspace", "conformance-check")
        do {
            _ = try FaultRule.parse(.object(scoped))
        } catch {
            for problem in error.problems { reader.problem(path, "not a fault rule: \(problem)") }
            return nil
        }
        return value
    }
}
