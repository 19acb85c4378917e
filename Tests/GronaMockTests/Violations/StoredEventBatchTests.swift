import GronaMockJSON
import Testing

@testable import GronaMock

/// The packed rows a scan hands from its reading thread to the checker (`StoredEventBatch`), and the columns
/// the checker reads once while they repeat (`RowMemo`): what comes out is what went in, whatever
/// the bytes.
@Suite("Packed scan rows and repeated columns")
struct StoredEventBatchTests {
    static func row(
        _ sequence: Int64, install: String = "install-1", visit: String? = "visit-1", campaign: String? = "spring",
        type: String = "served", customer: String? = nil, json: String = "{}"
    ) -> StoredEventColumns {
        StoredEventColumns(
            sequence: sequence, eventID: "e\(sequence)", type: type, timestamp: sequence, receivedAt: sequence + 1,
            correctedTimestamp: sequence + 2, installID: install, customerID: customer, visitID: visit,
            campaignID: campaign, variantID: campaign == nil ? nil : "v1", arm: "treatment", placement: "home_top",
            demo: sequence % 2 == 0, configRevision: sequence % 3 == 0 ? nil : sequence, json: Array(json.utf8))
    }

    @Test("every row reads back as it was packed: absent, empty and non-ASCII texts, numbers, JSON")
    func roundTrip() {
        let rows = [
            Self.row(1), Self.row(2, visit: nil, campaign: nil, customer: ""),
            Self.row(3, install: "install-ü", visit: "", customer: "c-ß", json: #"{"screen":{"type":"home"}}"#),
            Self.row(4, install: "", type: "", json: ""),
        ]
        var batch = StoredEventBatch()
        for row in rows { batch.append(row) }
        #expect(batch.count == rows.count)
        #expect((0..<batch.count).map { batch[$0] } == rows)
        batch.removeAll()
        #expect(batch.isEmpty && batch.bytes.isEmpty)
    }

    @Test("a repeated column is read once and reused; a change, a prefix or NULL is read anew")
    func repeatedColumns() {
        var batch = StoredEventBatch()
        for row in [
            Self.row(1), Self.row(2), Self.row(3, install: "install-10", visit: nil),
            Self.row(4, install: "install-1", visit: "visit-1", campaign: nil), Self.row(5, type: "exposure"),
        ] {
            batch.append(row)
        }
        var columns = RowMemo()
        let events = (0..<batch.count).map { CheckedEvent(batch, row: $0, columns: &columns) }
        #expect(events.map(\.installID) == ["install-1", "install-1", "install-10", "install-1", "install-1"])
        #expect(events.map(\.visitID) == ["visit-1", "visit-1", nil, "visit-1", "visit-1"])
        #expect(events.map(\.campaignID) == ["spring", "spring", "spring", nil, "spring"])
        #expect(events.map(\.type) == [.served, .served, .served, .served, .exposure])
        #expect(events.map(\.placement) == Array(repeating: .homeTop, count: 5))
        #expect(events.map(\.eventID) == ["e1", "e2", "e3", "e4", "e5"])
    }

    @Test("bytes that are not UTF-8 read as repaired text on every row, never as a neighbour's")
    func invalidUTF8() {
        var batch = StoredEventBatch()
        let invalid: [[UInt8]] = [[0x69, 0xFF], [0x69, 0xFE], [0x69, 0xFE]]
        for (number, bytes) in invalid.enumerated() {
            // Packed by hand, as a backend does: a `String` cannot hold these bytes.
            func pack(_ bytes: [UInt8]) -> StoredEventBatch.Field {
                bytes.withUnsafeBytes { batch.pack($0) } ?? .empty
            }
            let eventID = pack(Array("e\(number)".utf8))
            let type = pack(Array("served".utf8))
            let installID = pack(bytes)
            let json = pack(Array("{}".utf8))
            batch.append(
                StoredEventBatch.Row(
                    sequence: Int64(number), timestamp: 1, receivedAt: 1, correctedTimestamp: 1, configRevision: nil,
                    demo: false, eventID: eventID, type: type, installID: installID, customerID: nil, visitID: nil,
                    campaignID: nil, variantID: nil, arm: nil, placement: nil, json: json))
        }
        var columns = RowMemo()
        let read = (0..<batch.count).map { CheckedEvent(batch, row: $0, columns: &columns).installID }
        #expect(read == invalid.map { String(decoding: $0, as: UTF8.self) })
        #expect(read[0] == read[1])  // both repaired to the same text, each read from its own bytes
    }

    @Test("a batch skimmed on the reading thread reads as one the checker skims itself, whatever its JSON")
    func skimmedAhead() {
        let jsons = [
            #"{"screen":{"type":"home"},"key":null,"demo":false}"#,
            #"{"screen":{"type":"product","id":"sku-1","name":"Shoe"},"key":"k\"1","preview":"tok","demo":true}"#,
            #"{"preview":true,"treatments":[{"campaignID":"spring","variantID":"v1","placement":"home_top"}]}"#,
            #"{"scr\u0065en":{"type":"escaped key"},"key":"k"}"#,
            #"{"screen":{"type":"#, "", #"{"screen":"not an object","preview":""}"#,
        ]
        var batch = StoredEventBatch()
        for (number, json) in jsons.enumerated() { batch.append(Self.row(Int64(number + 1), json: json)) }
        func read(_ batch: StoredEventBatch) -> [String] {
            var columns = RowMemo()
            return (0..<batch.count).map { index in
                let event = CheckedEvent(batch, row: index, columns: &columns)
                return "\(event.screen)|\(String(describing: event.key))|\(String(describing: event.preview))|"
                    + "\(String(describing: event.demo))|\(event.treatments.map(\.campaignID))|\(event.eventID)"
            }
        }
        var skimmed = batch
        CheckedEvent.skim(&skimmed)
        #expect(skimmed.skims.count == batch.count)
        #expect(read(skimmed) == read(batch))
        #expect(read(batch)[1].hasPrefix("product sku-1 Shoe|Optional(\"k\\\"1\")|"))
        #expect(read(batch)[3].hasPrefix("escaped key|"))
        // Rows appended after the skim are not skimmed: the checker then skims each row itself as it reads it.
        skimmed.append(Self.row(9, json: jsons[1]))
        #expect(read(skimmed).last?.split(separator: "|").dropLast() == read(batch)[1].split(separator: "|").dropLast())
    }

    @Test("a screen's parts are joined as the event's JSON reads them: present ones, empty or not, in order")
    func screenParts() throws {
        let screens = [
            #"{"type":"home"}"#, #"{"type":"product","id":"sku-1"}"#, #"{"id":"sku-1","name":"Shoe"}"#,
            #"{"type":"","id":"x"}"#, #"{"name":"Only"}"#, #"{"type":"plp","id":7,"name":"Milk"}"#, "{}",
            #"{"type":"search","id":"","name":""}"#,
        ]
        var batch = StoredEventBatch()
        for (number, screen) in screens.enumerated() {
            batch.append(Self.row(Int64(number + 1), json: #"{"screen":"# + screen + "}"))
        }
        // Skimmed by the checker as it reads each row, and on the reading thread ahead of it.
        var skimmed = batch
        CheckedEvent.skim(&skimmed)
        for batch in [batch, skimmed] {
            var columns = RowMemo()
            for (index, screen) in screens.enumerated() {
                let parsed = try JSONParser().parse(Array((#"{"screen":"# + screen + "}").utf8))
                let expected = CheckedEvent(parsed).screen
                #expect(CheckedEvent(batch, row: index, columns: &columns).screen == expected, "\(screen)")
            }
            #expect(CheckedEvent(batch, row: 7, columns: &columns).screen == "search  ")
        }
    }
}
