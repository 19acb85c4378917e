import Foundation
import GronaMockTestSupport
import Testing

/// `grona-mock-embed-assets`, the tool the `EmbedDashboardAssets` plugin runs: each file becomes a raw string
/// literal that no content can end early, the output is the same for the same files, and a file it cannot take
/// stops the build with a sentence naming it (exit 65), not with a Swift compile error far from the cause.
@Suite("grona-mock-embed-assets")
struct EmbedAssetsToolTests {
    static let tool = BinaryRunner.product("grona-mock-embed-assets")

    /// A fresh directory holding `files` (name to bytes).
    static func directory(_ files: [String: [UInt8]]) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("embed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, bytes) in files { try Data(bytes).write(to: directory.appendingPathComponent(name)) }
        return directory
    }

    static func embed(_ directory: URL, _ names: [String], into output: String = "out.swift") throws
        -> BinaryRunner.Result
    {
        try BinaryRunner.run(
            [directory.appendingPathComponent(output).path, directory.path] + names, executable: tool)
    }

    @Test("a file with quotes, hashes and backslashes is one literal its content cannot close; the output is stable")
    func literalsHoldAnyText() throws {
        let tricky = "let a = \"## \\(b) \"\"\"#\n\\###x \"####\n"
        let directory = try Self.directory(["tricky.js": Array(tricky.utf8), "empty.css": []])
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try Self.embed(directory, ["tricky.js", "empty.css"]).status == 0)
        #expect(try Self.embed(directory, ["tricky.js", "empty.css"], into: "again.swift").status == 0)
        let output = try String(contentsOf: directory.appendingPathComponent("out.swift"), encoding: .utf8)
        let again = try String(contentsOf: directory.appendingPathComponent("again.swift"), encoding: .utf8)
        #expect(output == again)
        // The longest run of # after a quote or a backslash is 4: the literal takes 5.
        #expect(output.contains("(\"tricky.js\", #####\"\"\"\n\(tricky)\n\"\"\"#####),"))
        #expect(output.contains("(\"empty.css\", #\"\"\"\n\n\"\"\"#),"))
    }

    @Test(
        "a file it cannot take is refused by name with exit 65",
        arguments: [
            ("crlf.js", Array("a\r\nb\n".utf8), "has CR characters"),
            ("binary.js", [0xFF, 0xFE, 0x00], "not UTF-8 text"),
            ("two words.js", Array("x".utf8), "an embedded file's name is letters, digits"),
        ])
    func refusesBadFiles(name: String, bytes: [UInt8], reason: String) throws {
        let directory = try Self.directory([name: bytes])
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try Self.embed(directory, [name])
        #expect(result.status == 65)
        #expect(result.stderr.contains("grona-mock-embed-assets: \(name): \(reason)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out.swift").path))
    }

    @Test("a missing file is named, and no arguments is a usage error (64)")
    func missingFileAndUsage() throws {
        let directory = try Self.directory([:])
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = try Self.embed(directory, ["gone.js"])
        #expect(missing.status == 65)
        #expect(missing.stderr.contains("gone.js: cannot read it"))
        let usage = try BinaryRunner.run([], executable: Self.tool)
        #expect(usage.status == 64)
        #expect(usage.stderr.hasPrefix("usage: grona-mock-embed-assets"))
    }
}
