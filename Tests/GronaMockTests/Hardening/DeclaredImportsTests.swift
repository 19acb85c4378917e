import Foundation
import Testing

/// The layers of Package.swift hold in the sources (issue 29): every module of this package that a target
/// imports is one it declares, so nothing leans on what another dependency happens to bring in, and the
/// storage backends and the load generator stand on the platform target, never on the HTTP core.
@Suite("Layering: declared imports")
struct DeclaredImportsTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A target of Package.swift: its module name, where its files are, and the targets it declares.
    struct Target {
        let name: String
        let directory: String
        let dependencies: Set<String>
        /// The name `import` uses: a dash becomes an underscore (`grona-mock` is `grona_mock`).
        var module: String { name.replacingOccurrences(of: "-", with: "_") }
    }

    /// Every Swift target of the manifest. The manifest is read as text: running `swift package` from a test
    /// would wait for the build directory's lock, which the running `swift test` holds.
    static func targets() throws -> [Target] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var targets: [Target] = []
        let kinds = [".target(", ".testTarget(", ".executableTarget("]
        var rest = manifest[...]
        while let start = kinds.compactMap({ rest.range(of: $0) }).min(by: { $0.lowerBound < $1.lowerBound }) {
            let after = rest[start.upperBound...]
            let next =
                kinds.compactMap { after.range(of: $0)?.lowerBound }.min()
                ?? after.range(of: "swiftLanguageModes")?.lowerBound ?? after.endIndex
            let chunk = after[..<next]
            rest = after[next...]
            guard let name = quoted(after: "name:", in: chunk) else { continue }
            let isTest = manifest[start].hasPrefix(".testTarget(")
            let directory = quoted(after: "path:", in: chunk) ?? ((isTest ? "Tests/" : "Sources/") + name)
            var dependencies: Set<String> = []
            if let list = chunk.range(of: "dependencies: ["), let close = chunk[list.upperBound...].firstIndex(of: "]")
            {
                for part in chunk[list.upperBound..<close].split(separator: "\"", omittingEmptySubsequences: false)
                    .enumerated()
                where part.offset % 2 == 1 {
                    dependencies.insert(String(part.element))
                }
            }
            targets.append(Target(name: name, directory: directory, dependencies: dependencies))
        }
        return targets
    }

    static func quoted(after label: String, in text: Substring) -> String? {
        guard let at = text.range(of: label), let open = text[at.upperBound...].firstIndex(of: "\""),
            let close = text[text.index(after: open)...].firstIndex(of: "\"")
        else { return nil }
        return String(text[text.index(after: open)..<close])
    }

    /// The modules each Swift file of `directory` imports, by the file's path from the repository.
    static func imports(in directory: String) throws -> [(file: String, modules: Set<String>)] {
        let url = root.appendingPathComponent(directory)
        guard let walker = FileManager.default.enumerator(atPath: url.path) else { return [] }
        return try walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map { relative in
            let text = try String(contentsOf: url.appendingPathComponent(relative), encoding: .utf8)
            var modules: Set<String> = []
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
                    words[..<index].allSatisfy({ $0.hasPrefix("@") || $0 == "package" || $0 == "public" })
                else { continue }
                modules.insert(String(words[index + 1]))
            }
            return (directory + "/" + relative, modules)
        }
    }

    @Test("every module of this package that a target imports is one its entry in Package.swift declares")
    func importsAreDeclared() throws {
        let targets = try Self.targets()
        #expect(targets.count > 20, "the manifest read found \(targets.count) targets")
        let byModule = Dictionary(uniqueKeysWithValues: targets.map { ($0.module, $0) })
        for target in targets {
            let declared = Set(target.dependencies.map { $0.replacingOccurrences(of: "-", with: "_") })
            for (file, modules) in try Self.imports(in: target.directory) {
                for module in modules where byModule[module] != nil && module != target.module {
                    #expect(
                        declared.contains(module), "\(file) imports \(module), which \(target.name) does not declare")
                }
            }
        }
    }

    @Test("the storage backends, the load generator and the conformance runner never stand on the HTTP core")
    func noHTTPBelowTheEngine() throws {
        let targets = Dictionary(uniqueKeysWithValues: try Self.targets().map { ($0.name, $0) })
        for name in [
            "GronaMockPlatform", "GronaMockSQLite", "GronaMockPostgres", "GronaMockLoad", "GronaMockConformance",
            "GronaMockTLSCore",
        ] {
            let target = try #require(targets[name])
            #expect(!target.dependencies.contains("GronaMockHTTP"), "\(name) declares the HTTP core")
            for (file, modules) in try Self.imports(in: target.directory) {
                #expect(!modules.contains("GronaMockHTTP"), "\(file) imports the HTTP core")
            }
        }
        let platform = try #require(targets["GronaMockPlatform"])
        #expect(platform.dependencies.isSubset(of: ["GronaMockJSON", "GronaMockCLinux", "GronaMockCAtomics"]))
        #expect(try #require(targets["GronaMockHTTP"]).dependencies.contains("GronaMock") == false)
    }

    @Test("the command line imports the HTTP core only where it builds a server")
    func commandLineHTTP() throws {
        let importers = try Self.imports(in: "Sources/grona-mock").filter { $0.modules.contains("GronaMockHTTP") }
        #expect(importers.map(\.file) == ["Sources/grona-mock/ServeCommand.swift"])
    }
}
