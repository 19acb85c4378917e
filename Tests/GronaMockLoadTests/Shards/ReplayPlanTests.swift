import Foundation
import GronaMockJSON
import Testing

@testable import GronaMockLoad

/// `--replay`'s first pass: what is an event and what is not, line by line, with the numbers a user looks up.
@Suite struct ReplayPlanTests {
    static func plan(_ text: String, speed: Double = 1) throws -> ReplayPlan {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString).ndjson")
        try Data(text.utf8).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        return try ReplayPlan(path: path.path, speed: speed)
    }

    static func event(_ id: String, install: String, at timestamp: Int64) -> String {
        #"{"sequence":1,"workspaceKey":"w","eventID":"\#(id)","type":"app_open","timestamp":\#(timestamp),"installID":"\#(install)","receivedAt":5,"correctedTimestamp":6}"#
    }

    @Test func countsEventsAndInstallsInTheOrderTheyAppear() throws {
        let text = [
            Self.event("a", install: "i-2", at: 1_000), "", Self.event("b", install: "i-1", at: 3_000) + "\r",
            Self.event("c", install: "i-2", at: 2_000),
        ].joined(separator: "\n")
        let plan = try Self.plan(text, speed: 2)
        #expect(plan.events == 3)
        #expect(plan.installIDs == ["i-2", "i-1"])
        #expect(plan.badLines == 0)
        #expect(plan.durationSeconds == 1)
    }

    @Test func reportsEachBadLineByNumber() throws {
        let long = #"{"x":""# + String(repeating: "a", count: NDJSONLines.maximumLineBytes) + #""}"#
        let text = [
            Self.event("a", install: "i", at: 1), "not json", #"{"eventID":"b","type":"t","timestamp":1}"#, "[1]",
            long, #"{"installID":"i","eventID":"c","type":"t","timestamp":-1}"#, Self.event("d", install: "i", at: 2),
        ].joined(separator: "\n")
        let plan = try Self.plan(text)
        #expect(plan.events == 2)
        #expect(plan.badLines == 5)
        #expect(
            plan.sampleBadLines == [
                "line 2: not JSON", "line 3: no installID (a string of 1 to 256 bytes)", "line 4: not a JSON object",
                "line 5: longer than 1048576 bytes", "line 6: no timestamp (whole Unix epoch milliseconds)",
            ])
    }

    @Test func aMissingFileIsSaidSo() {
        #expect(throws: ReplayFileError.self) { try ReplayPlan(path: "/nonexistent/replay.ndjson", speed: 1) }
    }

    @Test(arguments: ["0", "-1", "nan", "inf", "1000001", "x"])
    func refusesASpeedThatIsNotAFactor(text: String) {
        #expect(throws: LoadSettings.OptionError.self) { try ReplayPlan.speed(text) }
    }

    /// The server's fields go, the ids are fresh, the visit and order are the run's own.
    @Test func anEventIsSentWithFreshIDs() throws {
        let line =
            #"{"sequence":9,"workspaceKey":"w","eventID":"old","type":"purchase","timestamp":5,"installID":"i","visitID":"v1","orderID":"o1","totalMinor":100,"receivedAt":6,"correctedTimestamp":7}"#
        let event = try ReplayEvent(line: Array(line.utf8))
        var out: [UInt8] = []
        event.encoded(eventID: Array("tag-0-3".utf8), timestamp: 42, runTag: "tag", into: &out)
        #expect(out.first == UInt8(ascii: ","))
        let sent = try JSONParser().parse(Array(out.dropFirst()))
        #expect(sent["eventID"]?.stringValue == "tag-0-3")
        #expect(sent["timestamp"]?.int64Value == 42)
        #expect(sent["visitID"]?.stringValue == "tag-v1")
        #expect(sent["orderID"]?.stringValue == "tag-o1")
        #expect(sent["totalMinor"]?.int64Value == 100)
        for field in ReplayEvent.serverFields { #expect(sent[field] == nil, "\(field)") }
    }
}
