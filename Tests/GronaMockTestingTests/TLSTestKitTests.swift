import Foundation
import GronaMockTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The test kit with `tls: true`, as an SDK's tests use it: HTTPS with a CA of its own, and a URLSession
/// that trusts it (on Linux through the kit's URLProtocol; see `makeURLSession`).
@Suite("GronaMockTesting over TLS")
struct TLSTestKitTests {
    @Test("a TLS mock serves https, and the session it makes gets the configuration and posts events")
    func sessionTrustsTheMock() async throws {
        try await withGronaMock(.init(tls: true)) { mock in try await Self.fetchAndPost(mock) }
    }

    static func fetchAndPost(_ mock: GronaMockTestServer) async throws {
        #expect(mock.baseURL.scheme == "https")
        let authority = try #require(mock.certificateAuthority)
        #expect(authority.pem.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(!authority.der.isEmpty)

        let session = mock.makeURLSession()
        let workspace = try mock.workspace("acme-market")
        let (config, configResponse) = try await session.data(from: workspace.configurationURL)
        let http = try #require(configResponse as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "Content-Type") == "application/jose+json")
        #expect(http.value(forHTTPHeaderField: "ETag") != nil)
        #expect(config.count > 100)

        var post = URLRequest(url: workspace.eventsURL)
        post.httpMethod = "POST"
        post.setValue("application/json", forHTTPHeaderField: "Content-Type")
        post.httpBody = try TestKitTests.batch(workspace: "acme-market", events: [TestKitTests.exposure("e-tls-kit")])
        let (body, postResponse) = try await session.data(for: post)
        #expect((postResponse as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: body, as: UTF8.self))")
        let events = try await workspace.waitForEvents(count: 1, timeout: .seconds(10))
        #expect(events.contains { $0.eventID == "e-tls-kit" })
    }

    @Test("a session that does not trust the mock's CA is refused, and curl with the CA file is served")
    func trustIsReal() async throws {
        try await withGronaMock(.init(tls: true)) { mock in try await Self.refusedThenCurl(mock) }
    }

    static func refusedThenCurl(_ mock: GronaMockTestServer) async throws {
        let url = try mock.workspace("acme-market").configurationURL
        await #expect(throws: (any Error).self) {
            _ = try await URLSession(configuration: .ephemeral).data(from: url)
        }
        let authority = try #require(mock.certificateAuthority)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", "--cacert",
            authority.file.path, url.absoluteString,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(text == "200")
    }

    /// A cut answer fails over plain HTTP too, though libcurl's code for it on Linux is `.unknown`; over TLS
    /// the kit gives `.networkConnectionLost`, Apple's URLSession's code for it, which an SDK handles.
    @Test("over TLS the session sends a path as written and fails a cut answer, as over plain HTTP")
    func sameAnswersAsPlainHTTP() async throws {
        let plain = try await withGronaMock { mock in try await Self.encodedPathAndCutAnswer(mock) }
        let tls = try await withGronaMock(.init(tls: true)) { mock in try await Self.encodedPathAndCutAnswer(mock) }
        #expect(plain.encodedPathStatus == 404)
        #expect(plain.cutAnswer != nil)
        #expect(tls.encodedPathStatus == plain.encodedPathStatus)
        #expect(tls.cutAnswer == .networkConnectionLost)
    }

    /// The status of a path with an escaped space (`%20`: a bare space would break the request line), and
    /// the error of an answer cut by a truncate fault (nil when the session took the cut body as whole).
    static func encodedPathAndCutAnswer(
        _ mock: GronaMockTestServer
    ) async throws -> (encodedPathStatus: Int?, cutAnswer: URLError.Code?) {
        let session = mock.makeURLSession()
        let encoded = try #require(URL(string: mock.baseURL.absoluteString + "/_mock/no%20such"))
        let (_, response) = try await session.data(from: encoded)
        let workspace = try mock.workspace("acme-market")
        try await workspace.inject(.truncate(afterBytes: 10), on: .config)
        do {
            _ = try await session.data(from: workspace.configurationURL)
            return ((response as? HTTPURLResponse)?.statusCode, nil)
        } catch let error as URLError {
            return ((response as? HTTPURLResponse)?.statusCode, error.code)
        }
    }
}
