/// A command-line option: `--name VALUE` (or `--name=VALUE`), or a flag `--name`, with an environment
/// variable that supplies it when the argument is absent and a default when both are.
struct OptionSpec {
    let name: String
    /// A one-letter alias, as in `-o FILE`.
    var short: Character? = nil
    let valueName: String?
    let environment: String?
    let defaultValue: String?
    let help: String
    /// An empty environment variable is passed on as an empty value rather than read as unset: for options
    /// where "set but empty" is a mistake to refuse (an admin token), not a way to say "default".
    var keepsEmptyEnvironment = false

    var isFlag: Bool { valueName == nil }

    static func value(
        _ name: String, _ valueName: String, short: Character? = nil, environment: String? = nil,
        default defaultValue: String? = nil, help: String
    ) -> OptionSpec {
        OptionSpec(
            name: name, short: short, valueName: valueName, environment: environment, defaultValue: defaultValue,
            help: help)
    }

    static func flag(_ name: String, environment: String? = nil, help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, environment: environment, defaultValue: nil, help: help)
    }
}

/// A mistake in the command line: printed with a hint, exit status 64.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// What a command line said, after environment variables and defaults are applied.
struct ParsedOptions {
    private(set) var values: [String: String] = [:]
    /// Every value of an option given more than once, in order.
    private(set) var repeated: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    /// The options the command line or an environment variable set, as opposed to their defaults.
    private(set) var given: Set<String> = []
    private(set) var positionals: [String] = []
    var wantsHelp = false

    func value(_ name: String) -> String? { values[name] }
    func allValues(_ name: String) -> [String] { repeated[name] ?? [] }
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// An integer option within `range`, or a usage error naming the option.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = values[name] else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(
                "--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return number
    }

    /// Parses `arguments` against `specs`; `--help`/`-h` anywhere sets `wantsHelp`.
    static func parse(
        _ arguments: [String], specs: [OptionSpec], environment: [String: String], maxPositionals: Int = 0
    ) throws(UsageError) -> ParsedOptions {
        var parsed = ParsedOptions()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" {
                parsed.wantsHelp = true
                continue
            }
            if argument.count == 2, argument.hasPrefix("-"), argument != "--",
                let spec = specs.first(where: { $0.short == argument.last })
            {
                guard let value = spec.isFlag ? "" : (index < arguments.count ? arguments[index] : nil) else {
                    throw UsageError("\(argument) needs a value (\(spec.valueName ?? "VALUE"))")
                }
                if spec.isFlag {
                    parsed.flags.insert(spec.name)
                } else {
                    parsed.record(spec.name, value)
                    index += 1
                }
                continue
            }
            guard argument.hasPrefix("--"), argument.count > 2 else {
                guard !argument.hasPrefix("-") || argument == "-" else {
                    throw UsageError("unknown option \(argument)")
                }
                guard parsed.positionals.count < maxPositionals else {
                    throw UsageError("unexpected argument \"\(argument)\"")
                }
                parsed.positionals.append(argument)
                continue
            }
            let body = argument.dropFirst(2)
            let name = String(body.prefix { $0 != "=" })
            let inline = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
            guard let spec = specs.first(where: { $0.name == name }) else {
                throw UsageError("unknown option --\(name)")
            }
            if spec.isFlag {
                guard inline == nil else { throw UsageError("--\(name) takes no value") }
                parsed.flags.insert(name)
            } else if let inline {
                parsed.record(name, inline)
            } else {
                guard index < arguments.count else {
                    throw UsageError("--\(name) needs a value (\(spec.valueName ?? "VALUE"))")
                }
                parsed.record(name, arguments[index])
                index += 1
            }
        }
        for spec in specs {
            if spec.isFlag {
                if !parsed.flags.contains(spec.name), let variable = spec.environment, let text = environment[variable]
                {
                    switch text.lowercased() {
                    case "1", "true", "yes", "on": parsed.flags.insert(spec.name)
                    case "", "0", "false", "no", "off": break
                    default: throw UsageError("\(variable) must be true or false, not \"\(text)\"")
                    }
                }
            } else if parsed.values[spec.name] == nil {
                if let variable = spec.environment, let text = environment[variable],
                    !text.isEmpty || spec.keepsEmptyEnvironment
                {
                    parsed.values[spec.name] = text
                    parsed.given.insert(spec.name)
                } else if let defaultValue = spec.defaultValue {
                    parsed.values[spec.name] = defaultValue
                }
            }
        }
        return parsed
    }

    private mutating func record(_ name: String, _ value: String) {
        values[name] = value
        given.insert(name)
        repeated[name, default: []].append(value)
    }

    /// The options section of a help text: each option, its value, default and environment variable.
    static func help(for specs: [OptionSpec]) -> String {
        let rows = specs.map { spec -> (String, String) in
            let left =
                (spec.short.map { "  -\($0), " } ?? "  ") + "--\(spec.name)" + (spec.valueName.map { " \($0)" } ?? "")
            var right = spec.help
            if let defaultValue = spec.defaultValue { right += " (default: \(defaultValue))" }
            if let variable = spec.environment { right += " [env: \(variable)]" }
            return (left, right)
        }
        let width = (rows.map(\.0.count).max() ?? 0) + 2
        return rows.map { left, right in left + String(repeating: " ", count: width - left.count) + right }
            .joined(separator: "\n")
    }
}
