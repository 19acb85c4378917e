import GronaMockHTTP
import GronaMockJSON
import GronaMockPlatform
import GronaMockSQLite
import Testing

@testable import GronaMock

/// The events route stores each event from the batch's own text (issue 14). Compacted, that text must be what
/// writing the parsed event gives, for accepted and rejected events alike; and the route must in fact take that
/// path, since falling back to writing each event would be just as correct and slower.
@Suite("Events stored from the batch's text")
struct EventTextsTests {
    static let accepted = SampleEvents.placementEvent("exposure", id: "e-1", extra: [("label", "a\tb é")])
    static let refused = SampleEvents.placementEvent("exposure", id: "bad", arm: "neither")

    @Test("an indented batch is read with each event's text, and both kinds are stored compact")
    func indentedBatch() throws {
        let fixture = try MockFixture.standard()
        let storage = try SQLiteStorage(path: fixture.database.path)
        let (keys, _) = try KeyStore.load(from: fixture.keys.path)
        let registry = WorkspaceRegistry(
            directory: fixture.workspaces.path, keys: keys, revisions: storage, clock: ServerClock(), logger: .silent)
        registry.loadDirectory()
        let body = EventsAPI.envelope([Self.accepted, Self.refused]).prettySerialized()
        #expect(body.contains(0x0A))
        let request = HTTPRequest(
            head: HTTPRequestHead(
                method: .post, target: "/v1/mobile/events", headers: ["Content-Type": "application/json"]),
            body: body)
        let envelope = try EventsRoutes.readEnvelope(request, registry: registry)
        #expect(envelope.texts != nil)
        let (batch, rejections) = try EventsRoutes.validate(envelope, receivedAt: EventsAPI.receivedAt)
        #expect(batch.accepted.count == 1)
        #expect(rejections.map(\.0) == [1])
        #expect(batch.accepted[0].json == Self.accepted.serialized())
        #expect(batch.rejected.map(\.json) == [Self.refused.serialized()])
    }

    @Test("an events count that does not match the kept ranges falls back to writing each event")
    func mismatchedRanges() {
        #expect(EventTexts(body: [], ranges: [0..<1], count: 2) == nil)
        #expect(EventTexts(body: Array("[1]".utf8), ranges: [1..<2], count: 1)?.json(at: 0) == Array("1".utf8))
    }
}
