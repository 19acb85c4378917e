import Foundation
import Testing

/// The layers of docs/architecture.md, checked on the sources: what a reviewer would otherwise have to
/// remember on every change.
@Suite("Layering")
struct LayeringTests {
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// Every Swift file under `folder` of Sources, by its path from Sources, with its text.
    static func files(in folder: String) throws -> [(path: String, text: String)] {
        let root = sources.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        return try walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map { relative in
            (folder + "/" + relative, try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8))
        }
    }

    @Test("domain code throws its own errors: only routes, the control API and fault injection name HTTPError")
    func noHTTPErrorInTheDomain() throws {
        let files = try Self.files(in: "GronaMock")
        #expect(files.count > 50, "the walk found \(files.count) files")
        let speaksHTTP = { (path: String) in
            path.hasSuffix("Routes.swift") || path.hasPrefix("GronaMock/Control/")
                || path == "GronaMock/Faults/FaultInterception.swift" || path == "GronaMock/GronaMockServer.swift"
        }
        for file in files where !speaksHTTP(file.path) {
            let namesHTTPError = file.text.contains("HTTPError")
            #expect(!namesHTTPError, "\(file.path) names HTTPError; throw a domain error instead")
        }
    }

    @Test("each C library is imported in one place")
    func cModules() throws {
        var importers: [String: [String]] = [:]
        for folder in [
            "GronaMockPlatform", "GronaMockHTTP", "GronaMockJSON", "GronaMock", "GronaMockSQLite", "GronaMockPostgres",
            "grona-mock", "GronaMockTLS", "GronaMockTesting", "GronaMockLoad",
        ] {
            for file in try Self.files(in: folder) {
                for line in file.text.split(separator: "\n") where line.hasPrefix("import GronaMockC") {
                    importers[String(line.dropFirst("import ".count)), default: []].append(file.path)
                }
            }
        }
        #expect(importers["GronaMockCSQLite"] == ["GronaMockSQLite/SQLite.swift"])
        #expect(importers["GronaMockCPostgres"] == ["GronaMockPostgres/Libpq.swift"])
        // libcrypto for signing; libssl and the certificate calls of HTTPS, one file each.
        #expect(
            Set(importers["GronaMockCOpenSSL"] ?? []) == [
                "GronaMock/Signing/LibCrypto.swift", "GronaMockTLS/LibSSL.swift", "GronaMockTLS/LibX509.swift",
            ])
        #expect(importers["GronaMockCZlib"] == ["GronaMock/Compression/Gzip.swift"])
        #expect(
            importers["GronaMockCLinux"]?.allSatisfy {
                $0.hasPrefix("GronaMockHTTP/") || $0.hasPrefix("GronaMockPlatform/")
            }
                == true)
    }

    @Test("error codes are declared once: no ErrorCode is made from a string outside the two declaration files")
    func errorCodesDeclaredOnce() throws {
        let declarations: Set<String> = ["GronaMockHTTP/ErrorCode.swift", "GronaMock/Support/EngineErrorCodes.swift"]
        for folder in ["GronaMockHTTP", "GronaMock", "GronaMockSQLite", "GronaMockPostgres", "grona-mock"] {
            for file in try Self.files(in: folder) where !declarations.contains(file.path) {
                let makesCode = file.text.contains("ErrorCode(\"")
                #expect(!makesCode, "\(file.path) makes an error code from a string")
            }
        }
    }
}
