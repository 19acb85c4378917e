import Foundation
import GronaMock
import GronaMockTestSupport
import Testing

/// A small parser for the Prometheus text format (version 0.0.4): every line is a comment (`# HELP`,
/// `# TYPE` with a known type), or a sample `name{label="value",…} number`. Throws on anything else.
enum PrometheusText {
    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ text: String) throws -> [Sample] {
        var samples: [Sample] = []
        var typed: Set<String> = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
            if line.hasPrefix("# HELP ") { continue }
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                guard parts.count == 4, ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3])
                else {
                    throw Malformed(description: "bad TYPE line: \(line)")
                }
                typed.insert(String(parts[2]))
                continue
            }
            guard !line.hasPrefix("#") else { throw Malformed(description: "unknown comment: \(line)") }
            samples.append(try sample(String(line)))
        }
        for sample in samples {
            let base = ["_bucket", "_sum", "_count"].reduce(sample.name) { name, suffix in
                name.hasSuffix(suffix) && typed.contains(String(name.dropLast(suffix.count)))
                    ? String(name.dropLast(suffix.count)) : name
            }
            guard typed.contains(base) else { throw Malformed(description: "no TYPE for \(sample.name)") }
        }
        return samples
    }

    private static func sample(_ line: String) throws -> Sample {
        var rest = Substring(line)
        let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }
        guard !name.isEmpty, name.first?.isNumber == false else { throw Malformed(description: "bad name: \(line)") }
        rest = rest.dropFirst(name.count)
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let key = rest.prefix { $0 != "=" }
                rest = rest.dropFirst(key.count)
                guard rest.hasPrefix("=\"") else { throw Malformed(description: "bad label in: \(line)") }
                rest = rest.dropFirst(2)
                var value = ""
                while let character = rest.first, character != "\"" {
                    if character == "\\" {
                        rest = rest.dropFirst()
                        guard let escaped = rest.first else { throw Malformed(description: "bad escape: \(line)") }
                        value.append(escaped == "n" ? "\n" : escaped)
                    } else {
                        value.append(character)
                    }
                    rest = rest.dropFirst()
                }
                guard rest.first == "\"" else { throw Malformed(description: "unterminated label: \(line)") }
                rest = rest.dropFirst()
                labels[String(key)] = value
                if rest.first == "," { rest = rest.dropFirst() }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " ", let value = Double(rest.dropFirst()) else {
            throw Malformed(description: "bad value: \(line)")
        }
        return Sample(name: String(name), labels: labels, value: value)
    }

    static func value(_ samples: [Sample], _ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { sample in
            sample.name == name && labels.allSatisfy { key, value in sample.labels[key] == value }
        }?.value
    }
}

@Suite("GET /_mock/metrics")
struct MetricsTests {
    private func metrics(_ port: Int) throws -> [PrometheusText.Sample] {
        let response = try fetch(port, "GET /_mock/metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(response.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        return try PrometheusText.parse(response.text)
    }

    @Test("parses as Prometheus text, and counters move as requests are made")
    func countersMove() throws {
        let fixture = try MockFixture.standard()
        try fixture.withServer { server in
            let before = try metrics(server.port)
            let config = "GET /v1/mobile/workspaces/shop/config HTTP/1.1\r\nHost: x\r\n\r\n"
            let first = try fetch(server.port, config)
            _ = try fetch(
                server.port,
                config.replacingOccurrences(
                    of: "\r\n\r\n", with: "\r\nIf-None-Match: \(first.header("ETag") ?? "")\r\n\r\n"))
            _ = try fetch(
                server.port,
                GrantsEndpointTests.request("{\"customerID\":\"\(GrantsEndpointTests.customer(offer: true))\"}"))
            let events =
                #"{"workspaceKey":"shop","installID":"i","sdk":{"platform":"ios","version":"1"},"app":{"id":"a","version":"1"},"sentAt":1,"#
                + #""events":[{"eventID":"a","type":"served","timestamp":1,"placement":"home_top","screen":{"type":"home"},"visitID":"v","campaignID":"home-hero","variantID":"banner","arm":"treatment"},"#
                + #"{"eventID":"a","type":"served","timestamp":1,"placement":"home_top","screen":{"type":"home"},"visitID":"v","campaignID":"home-hero","variantID":"banner","arm":"treatment"},"#
                + #"{"eventID":"b","type":"bogus","timestamp":1}]}"#
            _ = try fetch(server.port, Control.request("POST", "/v1/mobile/events", body: events))
            let after = try metrics(server.port)

            let configRoute = ["route": "/v1/mobile/workspaces/{workspaceKey}/config", "method": "GET"]
            #expect(
                PrometheusText.value(after, "grona_http_requests_total", configRoute.merging(["status": "200"]) { $1 })
                    == 1)
            #expect(
                PrometheusText.value(after, "grona_http_requests_total", configRoute.merging(["status": "304"]) { $1 })
                    == 1)
            #expect(PrometheusText.value(after, "grona_configs_served_total") == 1)
            #expect(PrometheusText.value(after, "grona_configs_not_modified_total") == 1)
            #expect(PrometheusText.value(after, "grona_grants_issued_total") == 1)
            #expect(PrometheusText.value(after, "grona_events_accepted_total") == 1)
            #expect(PrometheusText.value(after, "grona_events_duplicate_total") == 1)
            #expect(PrometheusText.value(after, "grona_events_rejected_total") == 1)
            #expect(PrometheusText.value(before, "grona_events_accepted_total") == 0)
            #expect((PrometheusText.value(after, "grona_event_commit_size_count") ?? 0) >= 1)
            #expect(
                PrometheusText.value(
                    after, "grona_http_request_duration_seconds_count", ["route": configRoute["route"] ?? ""]) == 2)
            let infinity = PrometheusText.value(
                after, "grona_http_request_duration_seconds_bucket",
                ["route": configRoute["route"] ?? "", "le": "+Inf"])
            #expect(infinity == 2)
            #expect((PrometheusText.value(after, "grona_open_connections") ?? 0) >= 1)
            #expect((PrometheusText.value(after, "grona_database_bytes") ?? 0) > 0)
        }
    }

    @Test("the parser refuses what is not the format")
    func parserRefuses() {
        for bad in ["metric", "metric{a=\"1\" 2", "# TYPE x weird\nx 1", "1metric 2", "x 1"] {
            #expect(throws: PrometheusText.Malformed.self) { try PrometheusText.parse(bad) }
        }
    }
}
