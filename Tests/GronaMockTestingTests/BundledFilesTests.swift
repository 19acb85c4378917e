import Foundation
import Testing

/// The kit bundles copies of `workspaces/` and `keys/`; they must not drift from the committed files.
@Suite("Bundled workspaces and keys")
struct BundledFilesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test(
        "each bundled file is byte for byte the committed one, and none is missing", arguments: ["workspaces", "keys"])
    func identical(folder: String) throws {
        let committed = Self.root.appendingPathComponent(folder)
        let bundled = Self.root.appendingPathComponent("Sources/GronaMockTesting/Resources/\(folder)")
        let wanted = try FileManager.default.contentsOfDirectory(atPath: committed.path)
            .filter { $0.hasSuffix(".json") || $0.hasSuffix(".pem") }.sorted()
        let copies = try FileManager.default.contentsOfDirectory(atPath: bundled.path).sorted()
        #expect(copies == wanted, "copy workspaces/*.json and keys/*.pem into Sources/GronaMockTesting/Resources")
        for name in wanted {
            let same =
                try Data(contentsOf: committed.appendingPathComponent(name))
                == Data(contentsOf: bundled.appendingPathComponent(name))
            #expect(same, "\(folder)/\(name) differs from its bundled copy")
        }
    }
}
