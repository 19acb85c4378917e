import Foundation
import GronaMock
import GronaMockTestSupport
import Testing

/// `docs/openapi.yaml` and the router describe the same API: every route is documented, and every
/// documented operation is served. A route added without its documentation fails here.
@Suite("OpenAPI document and route table agree")
struct OpenAPICoverageTests {
    static let document = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/openapi.yaml")

    /// The operations under `paths:`: a path at two spaces of indent, its methods at four.
    static func documentedOperations() throws -> Set<String> {
        let text = try String(contentsOf: document, encoding: .utf8)
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        var operations: Set<String> = []
        var inPaths = false
        var path: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") && !line.isEmpty && !line.hasPrefix("#") {
                inPaths = line == "paths:"
                continue
            }
            guard inPaths else { continue }
            if line.hasPrefix("  /") && line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    ") && !line.hasPrefix("     "), line.hasSuffix(":"), let path {
                let name = line.trimmingCharacters(in: .whitespaces).dropLast()
                if methods.contains(String(name)) { operations.insert("\(name.uppercased()) \(path)") }
            }
        }
        return operations
    }

    @Test("every route is an operation in docs/openapi.yaml, and every operation there is a route")
    func tableMatchesDocument() throws {
        let fixture = try MockFixture.standard()
        let files = fixture.root.appendingPathComponent("static")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        var configuration = fixture.configuration()
        configuration.staticDirectory = files.path
        let server = try GronaMockServer.start(configuration, logger: .silent)
        defer {
            server.shutdown()
            server.wait()
        }
        let routes = Set(server.routes.map { "\($0.method) \($0.pattern)" })
        let documented = try Self.documentedOperations()
        #expect(routes.count >= 30, "the route table looks incomplete: \(routes.count)")
        #expect(routes.subtracting(documented).sorted() == [], "routes missing from docs/openapi.yaml")
        #expect(documented.subtracting(routes).sorted() == [], "documented operations no route serves")
    }
}
