import Foundation
import PackagePlugin

/// Embeds the dashboard's files (`Sources/GronaMock/Dashboard/Assets`) in the engine at build time, as one
/// generated Swift file of raw string literals: the binary (and the container image, which ships only it)
/// serves them from memory, with no build step for the files themselves and nothing read from disk at run
/// time. A changed, added or removed file regenerates it.
@main
struct EmbedDashboardAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard target.name == "GronaMock" else { return [] }
        // The package's directory, not the target's: `Target.directoryURL` needs tools version 6.1.
        let assets = context.package.directoryURL.appending(path: "Sources/GronaMock/Dashboard/Assets")
        let names = try FileManager.default.contentsOfDirectory(atPath: assets.path)
            .filter { !$0.hasPrefix(".") }
            .sorted()
        let inputs = names.map { assets.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "DashboardAssets+Files.swift")
        return [
            .buildCommand(
                displayName: "Embedding the dashboard's \(names.count) files",
                executable: try context.tool(named: "grona-mock-embed-assets").url,
                arguments: [output.path, assets.path] + names,
                inputFiles: inputs + [assets],
                outputFiles: [output])
        ]
    }
}
