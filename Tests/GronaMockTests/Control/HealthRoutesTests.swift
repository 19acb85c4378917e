import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockSQLite
import GronaMockTestSupport
import Testing

@Suite("GronaMockServer in-process")
struct GronaMockServerTests {
    @Test("starts on port 0 and answers GET /_mock/health with status and version")
    func health() throws {
        var configuration = GronaMockConfiguration(storage: .sqlite(path: ":memory:"))
        configuration.http.port = 0
        let server = try GronaMockServer.start(configuration, logger: .silent)
        defer {
            server.shutdown()
            server.wait()
        }
        #expect(server.port > 0)
        #expect(server.url == "http://127.0.0.1:\(server.port)")
        let client = try RawClient(port: server.port)
        try client.send("GET /_mock/health HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json")
        let json = try JSONParser().parse(response.body)
        #expect(json["status"]?.stringValue == "ok")
        #expect(json["version"]?.stringValue == GronaMockVersion.current)
    }

    @Test("serves the files of --static under /_mock/static/<name>, byte for byte")
    func staticFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(bytes).write(to: directory.appendingPathComponent("body.json"))

        var configuration = GronaMockConfiguration(storage: .sqlite(path: ":memory:"), staticDirectory: directory.path)
        configuration.http.port = 0
        let server = try GronaMockServer.start(configuration, logger: .silent)
        defer {
            server.shutdown()
            server.wait()
        }
        let client = try RawClient(port: server.port)
        try client.send("GET /_mock/static/body.json HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.body == bytes)
        try client.send("GET /_mock/static/other.json HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().status == 404)
    }

    @Test("a static directory that does not exist stops the start with a clear error")
    func missingStaticDirectory() {
        var configuration = GronaMockConfiguration(
            storage: .sqlite(path: ":memory:"), staticDirectory: "/nonexistent/grona")
        configuration.http.port = 0
        #expect {
            _ = try GronaMockServer.start(configuration, logger: .silent)
        } throws: { error in
            "\(error)".contains("/nonexistent/grona is not a directory")
        }
    }
}
