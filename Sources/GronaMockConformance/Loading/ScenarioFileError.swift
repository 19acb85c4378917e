import GronaMockJSON

/// A scenario file that cannot be used, with every problem found in it, each at its line: the runner refuses
/// the file before any test runs (docs/conformance.md, "Writing a scenario").
package struct ScenarioFileError: Error, Sendable, CustomStringConvertible {
    package struct Problem: Sendable, Equatable {
        /// From 1; nil when the file did not parse that far.
        package let line: Int?
        package let path: String
        package let message: String
    }

    package let file: String
    package let problems: [Problem]

    /// One line per problem: `scenarios/kill.json:12: steps[3].command: unknown command "vist"; …`.
    package var description: String {
        problems.map { problem in
            let place = problem.line.map { "\(file):\($0)" } ?? file
            return problem.path.isEmpty
                ? "\(place): \(problem.message)" : "\(place): \(problem.path): \(problem.message)"
        }.joined(separator: "\n")
    }
}

/// Collects problems while a scenario is read, each at its JSON path.
struct ProblemList {
    private(set) var entries: [(path: JSONPath, message: String)] = []

    var isEmpty: Bool { entries.isEmpty }

    mutating func add(_ path: JSONPath, _ message: String) {
        entries.append((path, message))
    }

    /// The problems with their lines, for `file`.
    func error(file: String, locations: JSONLocations) -> ScenarioFileError {
        ScenarioFileError(
            file: file,
            problems: entries.map { entry in
                ScenarioFileError.Problem(
                    line: locations.location(of: entry.path)?.line,
                    path: entry.path.isRoot ? "" : entry.path.description, message: entry.message)
            })
    }
}
