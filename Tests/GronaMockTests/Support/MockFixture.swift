import Foundation
import GronaMock
import GronaMockSQLite
import GronaMockTestSupport

/// A temporary directory with its own workspaces, keys and database, for one test: nothing is shared
/// between tests, and everything is removed at the end.
final class MockFixture {
    let root: URL
    var workspaces: URL { root.appendingPathComponent("workspaces") }
    var keys: URL { root.appendingPathComponent("keys") }
    var database: URL { root.appendingPathComponent("grona-mock.sqlite") }

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("grona-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: workspaces, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    /// Writes a new P-256 key as `keys/<kid>.pem` and returns it.
    @discardableResult
    func addKey(_ kid: String) throws -> P256SigningKey {
        let key = try P256SigningKey.generate()
        try key.pkcs8PEM().write(to: keys.appendingPathComponent("\(kid).pem"), atomically: true, encoding: .utf8)
        return key
    }

    /// Writes `workspaces/<key>.json`.
    func writeWorkspace(_ key: String, _ text: String) throws {
        try text.write(to: workspaces.appendingPathComponent("\(key).json"), atomically: true, encoding: .utf8)
    }

    /// A small valid workspace: one banner campaign and one customer-unit offer campaign.
    static func workspace(
        _ key: String, configKeys: [String] = ["cfg-1", "cfg-2"], grantKeys: [String] = ["grt-1", "grt-2"],
        bannerTitle: String = "Hello", secret: String? = nil
    ) -> String {
        let quoted = { (list: [String]) in list.map { "\"\($0)\"" }.joined(separator: ",") }
        return """
            {"workspaceKey": "\(key)", "secretKeys": ["\(secret ?? "sk_test_\(key)_secret")"],
             "signing": {"configKeys": [\(quoted(configKeys))], "grantKeys": [\(quoted(grantKeys))]},
             "grants": {"ttlSeconds": 3600},
             "config": {"settings": {"holdout": {"salt": "h-1", "weight": 500}},
              "campaigns": [
               {"id": "home-hero", "status": "live", "priority": 10, "placement": "home_top",
                "assignment": {"unit": "install", "salt": "home-hero-1"},
                "variants": [{"id": "control", "weight": 5000, "control": true},
                             {"id": "banner", "weight": 5000, "component": {"type": "banner", "title": "\(bannerTitle)"}}]},
               {"id": "checkout-10-off", "status": "live", "priority": 100, "placement": "checkout_above_pay",
                "assignment": {"unit": "customer", "salt": "checkout-10-off-1"},
                "variants": [{"id": "control", "weight": 5000, "control": true},
                             {"id": "ten-off", "weight": 5000, "component": {"type": "offer", "title": "10% off",
                              "treatment": {"type": "percent_off", "valueMilli": 10000}}}]}]}}
            """
    }

    /// A fixture with keys cfg-1, cfg-2, grt-1, grt-2 and one workspace `shop`.
    static func standard() throws -> MockFixture {
        let fixture = try MockFixture()
        for kid in ["cfg-1", "cfg-2", "grt-1", "grt-2"] { try fixture.addKey(kid) }
        try fixture.writeWorkspace("shop", workspace("shop"))
        return fixture
    }

    func configuration(reloadInterval: Duration = .milliseconds(50)) -> GronaMockConfiguration {
        var configuration = GronaMockConfiguration(
            workspacesDirectory: workspaces.path, keysDirectory: keys.path, storage: .sqlite(path: database.path),
            reloadInterval: reloadInterval)
        configuration.http.port = 0
        configuration.http.eventLoops = 1
        return configuration
    }

    /// Runs `body` against a server on this fixture, its configuration changed by `configure`, always stopping it.
    func withServer<T>(
        configure: (inout GronaMockConfiguration) -> Void = { _ in }, _ body: (GronaMockServer) throws -> T
    ) throws -> T {
        var configuration = configuration()
        configure(&configuration)
        let server = try GronaMockServer.start(configuration, logger: .silent)
        defer {
            server.shutdown()
            server.wait()
        }
        return try body(server)
    }

    /// The public keys of this fixture's key files, by kid.
    func publicKeys() throws -> [String: P256PublicKey] {
        let (store, _) = try KeyStore.load(from: keys.path)
        var keys: [String: P256PublicKey] = [:]
        for kid in store.keyIDs { keys[kid] = store[kid]?.publicKey }
        return keys
    }
}
