import Testing

@testable import GronaMockLoad

/// `--verify` against a server whose pages of `/_mock/events` do not behave: it must end, with a message,
/// instead of following a cursor round and round.
@Suite struct VerifyHardeningTests {
    static func result(tag: String) -> LoadRunResult {
        var acknowledged = AcknowledgedEvents(installs: 1)
        acknowledged.record(install: 0, first: 0, count: 2)
        return LoadRunResult(
            statistics: LoadStatistics(), elapsedSeconds: 1, acknowledged: acknowledged,
            rejectedEvents: RejectedEvents(),
            loggedPerInstall: [2], runTag: tag, seed: 1)
    }

    static func page(_ ids: [String], next: String?) -> ScriptedServer.Reply {
        let events = ids.map { "{\"eventID\":\"\($0)\"}" }.joined(separator: ",")
        let body = "{\"events\":[\(events)],\"nextCursor\":\(next.map { "\"\($0)\"" } ?? "null")}"
        return .send("HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
    }

    static func verify(_ replies: [ScriptedServer.Reply]) throws -> Result<LoadVerification, LoadRunError> {
        let server = try ScriptedServer(replies)
        defer { server.stop() }
        var settings = LoadSettings()
        settings.port = server.port
        settings.installs = 1
        settings.timeout = .seconds(5)
        return Result { () throws(LoadRunError) in
            try RunVerifier(settings: settings, result: Self.result(tag: "vh")).verify()
        }
    }

    /// A server that ignores `cursor` answers the same page with the same `nextCursor`: the run's events were
    /// counted again on every page (as doubled), for as long as the server kept answering.
    @Test func aCursorThatDoesNotAdvanceEndsTheCheck() throws {
        let same = Self.page(["vh-0-0", "vh-0-1"], next: "7")
        let outcome = try Self.verify(Array(repeating: same, count: 50))
        guard case .failure(let error) = outcome else {
            Issue.record("verified against a looping cursor: \(outcome)")
            return
        }
        #expect(error.description.contains("cursor"))
        #expect(error.description.contains("advance"))
    }

    /// An empty page that still names a next one would page for ever through nothing.
    @Test func anEmptyPageWithANextCursorEndsTheCheck() throws {
        let replies = (1...50).map { Self.page([], next: String($0)) }
        let outcome = try Self.verify(replies)
        guard case .failure(let error) = outcome else {
            Issue.record("verified through empty pages: \(outcome)")
            return
        }
        #expect(error.description.contains("empty page"))
    }

    /// Pages that advance are read to the end, and every event is found once.
    @Test func advancingPagesAreReadToTheEnd() throws {
        let replies = [
            Self.page(["vh-0-0"], next: "3"), Self.page(["vh-0-1"], next: "9"), Self.page([], next: nil),
            .send("HTTP/1.1 200 OK\r\nContent-Length: 17\r\n\r\n{\"violations\":[]}"),
        ]
        let verification = try Self.verify(replies).get()
        #expect(verification.stored == 2)
        #expect(verification.doubled == 0)
        #expect(verification.passed)
    }
}
