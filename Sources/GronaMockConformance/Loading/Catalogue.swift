import GronaMockJSON
import GronaMockPlatform

/// The built-in scenarios, compiled in: `ConformanceCatalogue.sources` is generated from the `Catalogue`
/// folder by the `EmbedDashboardAssets` plugin, as the dashboard's files are, so the binary needs no
/// resource files.
enum ConformanceCatalogue {}

/// The scenarios a run can take: the built-in catalogue, and a directory of the user's own (`--scenarios`).
package enum Catalogue {
    /// The built-in scenarios, in the order of their file names; a file that does not load is a bug of this
    /// package, reported as the error it is.
    package static func builtIn() -> (scenarios: [Scenario], errors: [ScenarioFileError]) {
        var scenarios: [Scenario] = []
        var errors: [ScenarioFileError] = []
        for source in ConformanceCatalogue.sources where source.name.hasSuffix(".json") {
            do {
                scenarios.append(try ScenarioLoader.load(Array(source.text.utf8), file: "catalogue/\(source.name)"))
            } catch {
                errors.append(error)
            }
        }
        return (scenarios, errors)
    }

    /// Every `*.json` of `directory` (not its subdirectories), in name order; each file that does not load is an
    /// error with its problems, and the others still load.
    package static func load(directory: String) -> (scenarios: [Scenario], errors: [ScenarioFileError]) {
        let names: [String]
        do {
            names = try FileSystem.list(directory).filter { $0.hasSuffix(".json") }.sorted()
        } catch {
            return (
                [], [ScenarioFileError(file: directory, problems: [.init(line: nil, path: "", message: "\(error)")])]
            )
        }
        var scenarios: [Scenario] = []
        var errors: [ScenarioFileError] = []
        for name in names {
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            do {
                let bytes = try FileSystem.read(path, maxBytes: 4 * 1024 * 1024)
                scenarios.append(try ScenarioLoader.load(bytes, file: path))
            } catch let error as ScenarioFileError {
                errors.append(error)
            } catch {
                errors.append(
                    ScenarioFileError(file: path, problems: [.init(line: nil, path: "", message: "\(error)")]))
            }
        }
        return (scenarios, errors)
    }

    /// Two scenarios with one test name cannot be told apart by `--run` or in a report: each later one is an
    /// error naming the first.
    package static func duplicates(_ scenarios: [Scenario]) -> [ScenarioFileError] {
        var seen: [String: String] = [:]
        var errors: [ScenarioFileError] = []
        for scenario in scenarios {
            if let first = seen[scenario.testName] {
                errors.append(
                    ScenarioFileError(
                        file: scenario.source,
                        problems: [
                            .init(line: nil, path: "name", message: "the test \(scenario.testName) is also \(first)")
                        ]))
            } else {
                seen[scenario.testName] = scenario.source
            }
        }
        return errors
    }
}
