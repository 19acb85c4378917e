import Foundation
import GronaMock
import GronaMockSQLite
import GronaMockTestSupport
import Testing

/// `--admin-token` protects the `/_mock` route group, not the routes registered before it: walking the
/// whole route table means a route added later cannot escape by accident.
@Suite("Admin token covers every /_mock route but health")
struct RouteProtectionTests {
    static let token = "t0ken-for-tests"
    static let healthPatterns: Set<String> = ["/_mock/health", "/_mock/health/live", "/_mock/health/ready"]
    /// The dashboard's page and files: public, since they hold no data and the page must load to ask for the
    /// token. Written out here, not taken from the engine, so that a route made public by mistake fails.
    static let dashboardPatterns: Set<String> = ["/_mock/ui", "/_mock/ui/{asset}"]
    static var publicPatterns: Set<String> { healthPatterns.union(dashboardPatterns) }

    /// A concrete path for a pattern: each `{parameter}` becomes a plausible value.
    static func path(for pattern: String) -> String {
        pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            switch segment {
            case "{name}": "body.json"
            case "{asset}": "app.js"
            case let parameter where parameter.hasPrefix("{"): "shop"
            default: String(segment)
            }
        }.joined(separator: "/")
    }

    static func withProtectedServer<T>(_ body: (GronaMockServer) throws -> T) throws -> T {
        let fixture = try MockFixture.standard()
        let files = fixture.root.appendingPathComponent("static")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: files.appendingPathComponent("body.json"))
        var configuration = fixture.configuration()
        configuration.adminToken = token
        configuration.staticDirectory = files.path
        let server = try GronaMockServer.start(configuration, logger: .silent)
        defer {
            server.shutdown()
            server.wait()
        }
        return try body(server)
    }

    @Test("every /_mock route in the table but health and the dashboard's files answers 401 without the right token")
    func everyControlRouteNeedsTheToken() throws {
        try Self.withProtectedServer { server in
            let control = server.routes.filter { $0.pattern.hasPrefix("/_mock/") }
            // The table is the real one: static files (registered last) and the health routes are in it.
            #expect(control.contains { $0.pattern == "/_mock/static/{name}" })
            #expect(Set(control.map(\.pattern)).isSuperset(of: Self.publicPatterns))
            #expect(control.contains { $0.pattern == "/_mock/events/live" })
            for route in control {
                let target = Self.path(for: route.pattern)
                for token in [nil, "wrong", Self.token + "x", ""] as [String?] {
                    let response = try fetch(
                        server.port, Control.request(route.method.description, target, body: "{}", token: token))
                    if Self.publicPatterns.contains(route.pattern) {
                        #expect(response.status != 401, "\(route.method) \(route.pattern) must stay open")
                    } else {
                        #expect(response.status == 401, "\(route.method) \(route.pattern) answered \(response.status)")
                        #expect(response.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
                        #expect(EventsAPI.errorCode(response) == "admin_token_required")
                    }
                }
            }
        }
    }

    @Test("a body sent without the token is refused on its head: no 100 Continue, nothing buffered (found in review)")
    func refusedBeforeTheBody() throws {
        try Self.withProtectedServer { server in
            let client = try RawClient(port: server.port)
            try client.send(
                "PUT /_mock/workspaces/big HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 8000000\r\nExpect: 100-continue\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 401)
            #expect(EventsAPI.errorCode(response) == "admin_token_required")
            #expect(response.header("Connection") == "close")
            // With the token, the same head is invited to send its body.
            let allowed = try RawClient(port: server.port)
            try allowed.send(
                "PUT /_mock/workspaces/big HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Authorization: Bearer \(Self.token)\r\nContent-Length: 8000000\r\nExpect: 100-continue\r\n\r\n")
            #expect(try allowed.readResponse().status == 100)
        }
    }

    @Test("with the token, static files and the control API answer")
    func tokenOpens() throws {
        try Self.withProtectedServer { server in
            let file = try fetch(server.port, Control.request("GET", "/_mock/static/body.json", token: Self.token))
            #expect(file.status == 200)
            #expect(file.text == "{}")
            let clock = try fetch(server.port, Control.request("GET", "/_mock/clock", token: Self.token))
            #expect(clock.status == 200)
        }
    }

    @Test("a route added to the router after the middleware is still behind it")
    func middlewareCoversLaterRoutes() throws {
        var router = Router()
        router.use(.prefix("/_mock/", except: ["/_mock/open"])) { _, responder, _ in
            responder.send(HTTPResponse(status: .unauthorized))
        }
        router.on(.get, "/_mock/later") { _ in HTTPResponse(status: .ok) }
        router.on(.get, "/_mock/open") { _ in HTTPResponse(status: .ok) }
        router.on(.get, "/public") { _ in HTTPResponse(status: .ok) }
        let statuses = try withLiveServer(router: router) { server throws -> [Int] in
            try ["/_mock/later", "/_mock/open", "/public"].map { path in
                try fetch(server.port, "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n").status
            }
        }
        #expect(statuses == [401, 200, 200])
    }

    @Test("an empty or unusable admin token is refused at start, in process and on the command line")
    func emptyTokenRefused() throws {
        for token in ["", "has space", "tab\there"] {
            var configuration = GronaMockConfiguration(storage: .sqlite(path: ":memory:"))
            configuration.http.port = 0
            configuration.adminToken = token
            #expect(throws: StartupError.self) { try GronaMockServer.start(configuration, logger: .silent) }
        }
        let argument = try BinaryRunner.run(["serve", "--port", "0", "--db", ":memory:", "--admin-token", ""])
        #expect(argument.status == 64)
        #expect(argument.stderr.contains("admin token is empty"))
        let variable = try BinaryRunner.run(
            ["serve", "--port", "0", "--db", ":memory:"], environment: ["GRONA_MOCK_ADMIN_TOKEN": ""])
        #expect(variable.status == 64)
        #expect(variable.stderr.contains("admin token is empty"))
    }
}

/// `--static` serves the directory's own files: a symbolic link that leads out of it is not served.
@Suite("Static files stay inside their directory")
struct StaticFilesContainmentTests {
    @Test("a link out of the directory is not served; a link inside it is")
    func linksOutAreNotServed() throws {
        let fixture = try MockFixture.standard()
        let files = fixture.root.appendingPathComponent("static")
        let outside = fixture.root.appendingPathComponent("secret.pem")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        try Data("-----BEGIN PRIVATE KEY-----".utf8).write(to: outside)
        try Data("inside".utf8).write(to: files.appendingPathComponent("inside.txt"))
        try FileManager.default.createSymbolicLink(
            atPath: files.appendingPathComponent("leak.txt").path, withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(
            atPath: files.appendingPathComponent("dots.txt").path, withDestinationPath: "../secret.pem")
        try FileManager.default.createSymbolicLink(
            atPath: files.appendingPathComponent("alias.txt").path, withDestinationPath: "inside.txt")
        var configuration = fixture.configuration()
        configuration.staticDirectory = files.path
        let server = try GronaMockServer.start(configuration, logger: .silent)
        defer {
            server.shutdown()
            server.wait()
        }
        for name in ["leak.txt", "dots.txt"] {
            let response = try fetch(server.port, "GET /_mock/static/\(name) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(response.status == 404)
            #expect(!response.text.contains("PRIVATE KEY"))
        }
        #expect(try fetch(server.port, "GET /_mock/static/alias.txt HTTP/1.1\r\nHost: x\r\n\r\n").text == "inside")
        #expect(try fetch(server.port, "GET /_mock/static/..%2Fsecret.pem HTTP/1.1\r\nHost: x\r\n\r\n").status == 404)
    }
}
