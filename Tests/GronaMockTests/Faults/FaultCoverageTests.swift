import Foundation
import GronaMock
import GronaMockTestSupport
import Testing

/// Faults are the middleware of a route group, not something each handler opts into: walking the real route
/// table proves that every Grona route (`/v1/…`) is faultable, so a route added later cannot escape faults.
@Suite("Every Grona route is faultable")
struct FaultCoverageTests {
    /// The `/v1/` routes that are no fault endpoint, each on purpose (docs/faults.md says which). A route
    /// added here needs its reason written in docs/faults.md too.
    static let neverFaulted: Set<String> = ["/v1/mobile/workspaces/{workspaceKey}/jwks.json"]

    /// A concrete path for a pattern: each `{parameter}` becomes the fixture's workspace.
    static func path(for pattern: String) -> String {
        pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.hasPrefix("{") ? "shop" : String(segment)
        }.joined(separator: "/")
    }

    /// A bare request to a route: no credentials and no body, so that only a rule asked at the start (one
    /// without a workspace) can fire for it.
    static func bare(_ method: HTTPMethod, _ pattern: String) -> String {
        "\(method) \(path(for: pattern)) HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
    }

    /// Whether a 418 rule on `endpoint` (a rule's `endpoint` value) fires for `request`; every rule is
    /// removed afterwards.
    static func fires(_ port: Int, endpoint: String, workspace: String? = nil, _ request: String) throws -> Bool {
        let scope = workspace.map { #""workspace": "\#($0)", "# } ?? ""
        try FaultAPI.add(port, #"{"endpoint": "\#(endpoint)", \#(scope)"kind": "status", "status": 418, "count": 1}"#)
        let response = try fetch(port, request)
        _ = try fetch(port, "DELETE /_mock/faults HTTP/1.1\r\nHost: x\r\n\r\n")
        return response.status == 418 && FaultAPI.errorCode(response) == "injected_fault"
    }

    @Test("a rule fires on every /v1/ route: one endpoint names it, at its start and once it knows its workspace")
    func everySDKRoute() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let routes = server.routes.filter { $0.pattern.hasPrefix("/v1/") }
            let names = FaultEngine.Endpoint.allCases.map(\.rawValue)
            #expect(routes.count >= names.count + Self.neverFaulted.count, "the route table looks incomplete")
            var named: [String] = []
            for (index, route) in routes.enumerated() {
                let request = Self.bare(route.method, route.pattern)
                let all = try Self.fires(server.port, endpoint: "all", request)
                if Self.neverFaulted.contains(route.pattern) {
                    #expect(!all, "\(route.method) \(route.pattern) is never faulted, but a rule fired on it")
                    continue
                }
                #expect(all, "no rule fires on \(route.method) \(route.pattern): it escapes faults")
                let firing = try names.filter { try Self.fires(server.port, endpoint: $0, request) }
                #expect(firing.count == 1, "\(route.method) \(route.pattern) is the endpoint of \(firing)")
                guard let endpoint = firing.first else { continue }
                named.append(endpoint)
                // The handler asks its workspace's rules too, once it knows the workspace.
                let valid = FaultAPI.request(endpoint, index)
                let scoped = try Self.fires(server.port, endpoint: endpoint, workspace: "shop", valid)
                #expect(scoped, "a rule of workspace shop does not fire on \(route.method) \(route.pattern)")
                #expect(try fetch(server.port, FaultAPI.request(endpoint, index + 1000)).status == 200)
            }
            #expect(named.sorted() == names.sorted(), "each fault endpoint is the route of exactly one pattern")
        }
    }

    @Test("each fault endpoint names the pattern of a served route, and only those routes are in the fault group")
    func endpointsArePatterns() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let patterns = Set(server.routes.map(\.pattern))
            for endpoint in FaultEngine.Endpoint.allCases {
                #expect(patterns.contains(endpoint.pattern), "\(endpoint) is no route: \(endpoint.pattern)")
                #expect(FaultEngine.Endpoint(route: endpoint.pattern) == endpoint)
            }
            for route in server.routes where !route.pattern.hasPrefix("/v1/") {
                #expect(FaultEngine.Endpoint(route: route.pattern) == nil, "\(route.pattern) is a fault endpoint")
            }
        }
    }
}
