import Foundation
import GronaMock
import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockTestSupport
import Testing

/// `--log-format json` writes each field with its JSON type, so that a log collector can compare `status`
/// and sum `bytes`; `text` writes the same values as before.
@Suite("Log lines keep their fields' types")
struct LogFormatTests {
    /// A logger that keeps its lines.
    final class Capture: Sendable {
        let lines = Mutex<[String]>([])
        func logger(_ format: Logger.Format) -> Logger {
            Logger(format: format) { [self] line in lines.withLock { $0.append(line) } }
        }
        var all: [String] { lines.withLock { $0 } }
    }

    @Test("numbers and booleans are JSON numbers and booleans; strings stay strings even when they look like numbers")
    func typedJSON() throws {
        let capture = Capture()
        let revision: Int64 = 7
        let path = "./workspaces/123.json"
        capture.logger(.json).info(
            "served",
            [
                ("workspace", "123"), ("file", path), ("revision", revision), ("status", 200), ("ratio", 0.25),
                ("served", true), ("stale", false), ("duration_ms", Logger.Value.fixed(100, decimals: 3)),
                ("error", "\(revision) failed"), ("big", UInt64.max), ("odd", Double.nan),
            ])
        let line = try #require(capture.all.first)
        let object = try JSONParser().parse(line)
        #expect(object["message"] == "served")
        #expect(object["workspace"] == .string("123"))
        #expect(object["file"] == .string(path))
        #expect(object["revision"] == 7)
        #expect(object["status"] == 200)
        #expect(object["ratio"]?.numberValue?.double == 0.25)
        #expect(object["served"] == true)
        #expect(object["stale"] == false)
        #expect(object["duration_ms"]?.numberValue?.text == "0.100")
        #expect(object["error"] == "7 failed")
        #expect(object["big"]?.numberValue?.text == "18446744073709551615")
        #expect(object["odd"] == "nan")
        #expect(line.contains(#""revision":7,"status":200,"#))
    }

    @Test("text lines read as before: numbers bare, strings quoted only when they need it")
    func text() throws {
        let capture = Capture()
        capture.logger(.text).warning(
            "keeping", [("workspace", "shop"), ("revision", Int64(3)), ("reason", "a b"), ("empty", ""), ("ok", true)])
        let line = try #require(capture.all.first)
        #expect(line.hasSuffix(#" warning keeping workspace=shop revision=3 reason="a b" empty="" ok=true"#))
    }

    @Test(
        "fixed decimals are exact",
        arguments: [
            (Int64(0), 3, "0.000"), (1, 3, "0.001"), (1234, 3, "1.234"), (-1234, 3, "-1.234"), (42, 0, "42"),
            (Int64.min, 3, "-9223372036854775.808"), (5, 1, "0.5"),
        ])
    func fixed(value: Int64, decimals: Int, text: String) {
        #expect(Logger.Value.fixed(value, decimals: decimals) == .number(JSONNumber(text: text) ?? 0))
    }

    @Test("the access log in JSON has a numeric status, byte count and duration")
    func accessLog() throws {
        let fixture = try MockFixture.standard()
        var configuration = fixture.configuration()
        configuration.http.accessLog = true
        let capture = Capture()
        let server = try GronaMockServer.start(configuration, logger: capture.logger(.json))
        defer {
            server.shutdown()
            server.wait()
        }
        #expect(try fetch(server.port, "GET /_mock/health/live HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
        var request: JSONValue?
        #expect(
            eventually {
                request = capture.all.compactMap { try? JSONParser().parse($0) }.first { $0["message"] == "request" }
                return request != nil
            })
        let line = try #require(request)
        #expect(line["method"] == "GET")
        #expect(line["path"] == "/_mock/health/live")
        #expect(line["status"] == 200)
        #expect(line["bytes"]?.int64Value ?? 0 > 0)
        #expect(line["duration_ms"]?.numberValue?.text.split(separator: ".").last?.count == 3)
        // The server's own lines carry typed values too: the revision it serves.
        let serving = capture.all.compactMap { try? JSONParser().parse($0) }.first {
            $0["message"] == "serving workspace"
        }
        #expect(serving?["revision"]?.int64Value != nil)
    }
}
