import Foundation
import GronaMockTestSupport
import Testing

@Suite("grona-mock command line")
struct ServeCommandTests {
    @Test("--version prints the version and the storage libraries it links, and exits 0")
    func version() throws {
        let result = try BinaryRunner.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("grona-mock "))
        #expect(result.stdout.contains("SQLite 3."))
        #expect(result.stdout.contains("libpq "))
        #expect(result.stderr.isEmpty)
    }

    @Test("--help lists the commands; serve --help lists every option with its environment variable")
    func help() throws {
        let top = try BinaryRunner.run(["--help"])
        #expect(top.status == 0)
        #expect(top.stdout.contains("serve"))
        let serve = try BinaryRunner.run(["serve", "--help"])
        #expect(serve.status == 0)
        for option in ["--host", "--port", "--workspaces", "--keys", "--db", "--store", "--access-log"] {
            #expect(serve.stdout.contains(option), "missing \(option)")
        }
        for variable in [
            "GRONA_MOCK_HOST", "GRONA_MOCK_PORT", "GRONA_MOCK_WORKSPACES", "GRONA_MOCK_KEYS", "GRONA_MOCK_DB",
            "GRONA_MOCK_STORE",
        ] {
            #expect(serve.stdout.contains(variable), "missing \(variable)")
        }
    }

    @Test(
        "usage errors exit 64 with a message on stderr",
        arguments: [
            (["serve", "--port", "http"], "--port must be a whole number"),
            (["serve", "--port", "70000"], "--port must be a whole number from 0 to 65535"),
            (["serve", "--bogus"], "unknown option --bogus"),
            (["serve", "--port"], "--port needs a value"),
            (["frobnicate"], "unknown command \"frobnicate\""),
            (["serve", "--log-format", "xml"], "--log-format must be text or json"),
            (["serve", "--store", "postgres://u:pw@db/x", "--db", "x.sqlite"], "--store and --db name two stores"),
            (["serve", "--store", "./grona-mock.sqlite"], "--store must be a postgres:// or postgresql:// URL"),
        ])
    func usageErrors(arguments: [String], message: String) throws {
        let result = try BinaryRunner.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "stderr was: \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test(
        "a PostgreSQL store that cannot be reached: exit 1 with the reason, and never the password",
        arguments: [["serve", "--port", "0"], ["events", "export"]])
    func unreachableStore(command: [String]) throws {
        let url = "postgresql://grona:pw-never-printed@/mock?host=/nonexistent-grona-mock&port=5999"
        let result = try BinaryRunner.run(command + ["--store", url])
        #expect(result.status == 1)
        #expect(result.stderr.contains("PostgreSQL"), "stderr was: \(result.stderr)")
        #expect(!result.stderr.contains("pw-never-printed"))
        #expect(!result.stdout.contains("pw-never-printed"))
    }

    @Test("a port that is taken is a failure: exit 1 with the reason")
    func portInUse() throws {
        let first = try ServerProcess(["serve", "--port", "0", "--db", ":memory:"])
        defer { _ = first.stop() }
        let second = try BinaryRunner.run(["serve", "--port", String(first.port), "--db", ":memory:"])
        #expect(second.status == 1)
        #expect(second.stderr.contains("cannot listen on 127.0.0.1:\(first.port)"))
        #expect(second.stderr.contains("in use"))
    }

    @Test(
        "serve prints its URL once bound, answers health, and exits 0 on SIGTERM, SIGINT and SIGHUP",
        arguments: [SIGTERM, SIGINT, SIGHUP])
    func serveAndStop(signal: Int32) throws {
        let server = try ServerProcess(["--port", "0", "--db", ":memory:"])
        #expect(server.url.hasPrefix("http://127.0.0.1:"))
        let client = try RawClient(port: server.port)
        try client.send("GET /_mock/health HTTP/1.1\r\nHost: x\r\n\r\n")
        let health = try client.readResponse()
        #expect(health.status == 200)
        #expect(health.text.contains("\"status\":\"ok\""))
        #expect(server.stop(signal: signal) == 0)
    }

    @Test("SIGQUIT stops serve as SIGTERM does, without the Swift runtime's crash report and backtrace")
    func quit() throws {
        let server = try ServerProcess(["--port", "0", "--db", ":memory:"])
        #expect(server.stop(signal: SIGQUIT, within: 20) == 0, "serve did not stop on SIGQUIT")
        let log = server.standardError
        #expect(log.contains("stopping signal=SIGQUIT"), "\(log)")
        #expect(!log.contains("Program crashed") && !log.contains("Backtracing"), "\(log)")
    }

    @Test("options come from environment variables when not given as arguments")
    func environmentVariables() throws {
        let server = try ServerProcess(
            ["serve"], environment: ["GRONA_MOCK_PORT": "0", "GRONA_MOCK_ACCESS_LOG": "1", "GRONA_MOCK_DB": ":memory:"])
        let client = try RawClient(port: server.port)
        try client.send("GET /_mock/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(try client.readResponse().status == 200)
        #expect(server.stop() == 0)
        let log = server.standardError
        #expect(log.contains("method=GET path=/_mock/health status=200"))
    }
}

@Suite("grona-mock serve start-up errors")
struct ServeStartupTests {
    @Test("a missing workspaces or keys directory stops the start with exit 1 and the reason")
    func missingDirectories() throws {
        let result = try BinaryRunner.run([
            "serve", "--port", "0", "--db", ":memory:", "--workspaces", "/nonexistent/ws",
        ])
        #expect(result.status == 1)
        #expect(result.stderr.contains("--workspaces /nonexistent/ws is not a directory"))
        let keys = try BinaryRunner.run(["serve", "--port", "0", "--db", ":memory:", "--keys", "/nonexistent/keys"])
        #expect(keys.status == 1)
        #expect(keys.stderr.contains("--keys /nonexistent/keys is not a directory"))
    }

    @Test("an unresolvable host says why")
    func badHost() throws {
        let result = try BinaryRunner.run([
            "serve", "--port", "0", "--db", ":memory:", "--host", "no-such-host.invalid",
        ])
        #expect(result.status == 1)
        #expect(result.stderr.contains("resolving no-such-host.invalid failed"))
        #expect(!result.stderr.contains("Invalid argument"))
    }
}
