import Foundation
import PackagePlugin

/// Embeds a target's text files at build time, as one generated Swift file of raw string literals: the binary
/// (and the container image, which ships only it) holds them, with no build step for the files themselves and
/// nothing read from disk at run time. A changed, added or removed file regenerates it. Two targets use it:
/// the engine for the dashboard's files (`Sources/GronaMock/Dashboard/Assets`, `DashboardAssets.sources`), and
/// the conformance runner for its catalogue of scenarios (`Sources/GronaMockConformance/Catalogue`,
/// `ConformanceCatalogue.sources`).
@main
struct EmbedDashboardAssets: BuildToolPlugin {
    /// Per target: the directory (from the package's root), the type the generated extension extends.
    static let embedded: [String: (directory: String, type: String, what: String)] = [
        "GronaMock": ("Sources/GronaMock/Dashboard/Assets", "DashboardAssets", "the dashboard's"),
        "GronaMockConformance": ("Sources/GronaMockConformance/Catalogue", "ConformanceCatalogue", "the catalogue's"),
    ]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let (directory, type, what) = Self.embedded[target.name] else { return [] }
        // The package's directory, not the target's: `Target.directoryURL` needs tools version 6.1.
        let assets = context.package.directoryURL.appending(path: directory)
        let names = try FileManager.default.contentsOfDirectory(atPath: assets.path)
            .filter { !$0.hasPrefix(".") }
            .sorted()
        let inputs = names.map { assets.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "\(type)+Files.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(what) \(names.count) files",
                executable: try context.tool(named: "grona-mock-embed-assets").url,
                arguments: ["--type", type, output.path, assets.path] + names,
                inputFiles: inputs + [assets],
                outputFiles: [output])
        ]
    }
}
