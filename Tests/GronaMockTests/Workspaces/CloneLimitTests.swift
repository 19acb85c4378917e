import Foundation
import GronaMock
import GronaMockTestSupport
import Testing

/// `--max-clones`: a shared server holds a bounded number of clones, and every way a clone goes (a DELETE, a
/// reset of it or of all, its time to live) gives its place back (issue 28).
@Suite("The clone limit")
struct CloneLimitTests {
    static func clone(_ port: Int, _ key: String, ttl: Int? = nil) throws -> RawClient.Response {
        try CloneExpiryTests.clone(port, key, ttl: ttl.map(String.init))
    }

    @Test("past --max-clones a clone is 409 too_many_clones, and every way a clone goes frees its place")
    func limit() throws {
        let fixture = try MockFixture.standard()
        let threeClones: (inout GronaMockConfiguration) -> Void = { $0.maxClones = 3 }
        try fixture.withServer(configure: threeClones) { server in
            let port = server.port
            for key in ["run-1", "run-2", "run-3"] { #expect(try Self.clone(port, key).status == 201) }
            let refused = try Self.clone(port, "run-4")
            #expect(refused.status == 409)
            #expect(EventsAPI.errorCode(refused) == "too_many_clones")
            #expect(EventsAPI.errorMessage(refused).contains("--max-clones"))
            #expect(try CloneExpiryTests.served(port, "run-4") == false)
            // Putting a document into a clone keeps it one clone, not two.
            let document = MockFixture.workspace("run-1", secret: "sk_test_run_1_own")
            #expect(try fetch(port, Control.request("PUT", "/_mock/workspaces/run-1", body: document)).status == 200)
            #expect(try Self.clone(port, "run-4").status == 409)

            // A DELETE frees a place.
            #expect(try fetch(port, Control.request("DELETE", "/_mock/workspaces/run-1")).status == 200)
            #expect(try Self.clone(port, "run-4", ttl: 60).status == 201)
            #expect(try Self.clone(port, "run-5").status == 409)
            // A reset of one clone frees its place.
            #expect(try fetch(port, Control.request("POST", "/_mock/reset?workspace=run-2")).status == 200)
            #expect(try Self.clone(port, "run-5").status == 201)
            #expect(try Self.clone(port, "run-6").status == 409)
            // Its time to live passing frees its place.
            #expect(server.workspaces.expireClones(now: .max) == ["run-4"])
            #expect(try Self.clone(port, "run-6").status == 201)
            #expect(server.workspaces.cloneCount == 3)
            // The global reset frees them all.
            #expect(try fetch(port, Control.request("POST", "/_mock/reset")).status == 200)
            #expect(server.workspaces.cloneCount == 0)
            for key in ["run-7", "run-8", "run-9"] { #expect(try Self.clone(port, key).status == 201) }
            #expect(try Self.clone(port, "run-10").status == 409)
        }
    }

    @Test("--max-clones 0 refuses every clone")
    func zero() throws {
        let fixture = try MockFixture.standard()
        let noClones: (inout GronaMockConfiguration) -> Void = { $0.maxClones = 0 }
        try fixture.withServer(configure: noClones) { server in
            let refused = try Self.clone(server.port, "run-1")
            #expect(refused.status == 409)
            #expect(EventsAPI.errorCode(refused) == "too_many_clones")
        }
    }

    @Test("a thousand clones made and removed leave the count, the secrets and the kill history as they were")
    func churn() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let port = server.port
            for round in 0..<1000 {
                let key = "churn-\(round % 7)"
                let body = #"{"workspaceKey":"\#(key)","secretKey":"sk_test_churn_secret_\#(round % 7)"}"#
                let made = try fetch(port, Control.request("POST", "/_mock/workspaces/shop/clone", body: body))
                #expect(made.status == 201, "round \(round)")
                let grants = try fetch(
                    port,
                    GrantsEndpointTests.request(#"{"customerID":"c-1"}"#, secret: "sk_test_churn_secret_\(round % 7)"))
                #expect(grants.status == 200, "round \(round)")
                let gone = try fetch(
                    port,
                    Control.request(
                        round.isMultiple(of: 2) ? "DELETE" : "POST",
                        round.isMultiple(of: 2)
                            ? "/_mock/workspaces/\(key)" : "/_mock/reset?workspace=\(key)"))
                #expect(gone.status == 200, "round \(round)")
                // The secret of a removed clone no longer opens anything.
                let after = try fetch(
                    port,
                    GrantsEndpointTests.request(#"{"customerID":"c-1"}"#, secret: "sk_test_churn_secret_\(round % 7)"))
                #expect(after.status == 401, "round \(round)")
                if made.status != 201 || gone.status != 200 { break }
            }
            #expect(server.workspaces.cloneCount == 0)
            #expect(server.workspaces.workspaceKeys == ["shop"])
        }
    }
}
