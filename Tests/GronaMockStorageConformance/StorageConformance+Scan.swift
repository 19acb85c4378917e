import GronaMock

extension StorageConformance {
    /// An event of `install` in `visit` (nil: no visit), in workspace `acme` unless named.
    private static func visitEvent(_ id: String, _ install: String, _ visit: String?, workspace: String = "acme")
        -> EventRecord
    {
        var record = Sample.event(id, workspace: workspace, install: install)
        record.visitID = visit
        return record
    }

    /// `scanEvents` in full, as (eventID, position) pairs.
    private static func scanned(_ storage: any GronaStorage, _ scan: EventScan) throws -> [String] {
        var ids: [String] = []
        try storage.scanEvents(scan) { row in
            ids.append(row.eventID)
            return true
        }
        return ids
    }

    static let scanChecks: [StorageConformance] = [
        StorageConformance("scanEvents reads in visit order: install, visit (none first), sequence") { storage in
            // Arrival order mixes installs and visits; ids name where each belongs. Two commits, so that the
            // second batch's sequences follow the first's on a backend that writes one commit's batches side by
            // side (PostgreSQL's halves), where "-2" could otherwise come before "-1".
            _ = try storage.commit([
                Sample.batch(
                    [
                        visitEvent("b-v1-1", "b", "v1"), visitEvent("a-v2-1", "a", "v2"),
                        visitEvent("a-v1-1", "a", "v1"),
                        visitEvent("other", "a", "v1", workspace: "beta"),
                    ], workspace: "acme")
            ])
            _ = try storage.commit([
                Sample.batch([
                    visitEvent("a-none-1", "a", nil), visitEvent("a-v1-2", "a", "v1"), visitEvent("b-none-1", "b", nil),
                    visitEvent("a-none-2", "a", nil),
                ])
            ])
            let last = try storage.lastSequence()
            let all = try scanned(storage, EventScan(workspace: "acme", throughSequence: last))
            let order = ["a-none-1", "a-none-2", "a-v1-1", "a-v1-2", "a-v2-1", "b-none-1", "b-v1-1"]
            try expectEqual(all, order, "visit order")
            try expectEqual(
                try scanned(storage, EventScan(workspace: "acme", installID: "b", throughSequence: last)),
                ["b-none-1", "b-v1-1"], "one install")
            // Through a sequence: the second batch's events are left out.
            try expectEqual(
                try scanned(storage, EventScan(workspace: "acme", throughSequence: 4)), ["a-v1-1", "a-v2-1", "b-v1-1"],
                "through")
            // From every position, inclusive: the rest of the order.
            var rows: [StoredEventColumns] = []
            try storage.scanEvents(EventScan(workspace: "acme", throughSequence: last)) { row in
                rows.append(row)
                return true
            }
            for (index, row) in rows.enumerated() {
                let scan = EventScan(workspace: "acme", start: row.position, throughSequence: last)
                try expectEqual(try scanned(storage, scan), Array(order[index...]), "from \(row.eventID)")
            }
            // Stopping: body's false ends the scan.
            var seen = 0
            try storage.scanEvents(EventScan(workspace: "acme", throughSequence: last)) { _ in
                seen += 1
                return seen < 2
            }
            try expectEqual(seen, 2, "stopped")
        },
        StorageConformance("scanEvents hands over every column, absent ones as absent") { storage in
            let full = Sample.event("full", install: "install-ü")
            var bare = EventRecord(
                workspaceKey: "acme", eventID: "bare", type: "purchase", timestamp: 5, receivedAt: 6,
                correctedTimestamp: 7, installID: "install-ü", json: Array("{}".utf8))
            bare.configRevision = nil
            _ = try storage.commit([Sample.batch([full, bare])])
            var rows: [StoredEventColumns] = []
            try storage.scanEvents(EventScan(workspace: "acme", throughSequence: try storage.lastSequence())) { row in
                rows.append(row)
                return true
            }
            try expectEqual(rows.map(\.eventID), ["bare", "full"], "order (no visit first)")
            let expected = StoredEventColumns(
                sequence: rows.last?.sequence ?? 0, eventID: "full", type: full.type, timestamp: full.timestamp,
                receivedAt: full.receivedAt, correctedTimestamp: full.correctedTimestamp, installID: full.installID,
                customerID: full.customerID, visitID: full.visitID, campaignID: full.campaignID,
                variantID: full.variantID, arm: full.arm, placement: full.placement, demo: full.demo,
                configRevision: full.configRevision, json: full.json)
            try expectEqual(rows.last, expected, "full")
            let none = StoredEventColumns(
                sequence: rows.first?.sequence ?? 0, eventID: "bare", type: "purchase", timestamp: 5, receivedAt: 6,
                correctedTimestamp: 7, installID: "install-ü", customerID: nil, visitID: nil, campaignID: nil,
                variantID: nil, arm: nil, placement: nil, demo: false, configRevision: nil, json: Array("{}".utf8))
            try expectEqual(rows.first, none, "bare")
        },
        StorageConformance("scanEvents packing into a batch hands the same rows, NULL apart from empty") { storage in
            var empty = Sample.event("empty", install: "install-ü")
            empty.customerID = ""
            empty.visitID = "visit-é"
            var bare = EventRecord(
                workspaceKey: "acme", eventID: "bare", type: "purchase", timestamp: 5, receivedAt: 6,
                correctedTimestamp: 7, installID: "install-ü", json: Array("{}".utf8))
            bare.configRevision = nil
            let many = (0..<300).map { visitEvent("m\($0)", "i\($0 % 3)", $0 % 4 == 0 ? nil : "v\($0 % 5)") }
            _ = try storage.commit([Sample.batch([Sample.event("full"), empty, bare] + many)])
            let scan = EventScan(workspace: "acme", throughSequence: try storage.lastSequence())
            var rows: [StoredEventColumns] = []
            try storage.scanEvents(scan) { row in
                rows.append(row)
                return true
            }
            // Packed: the batch handed on every 7 rows (as the read-ahead does), the rest left in it at the end.
            var packed: [StoredEventColumns] = []
            var batch = StoredEventBatch()
            try storage.scanEvents(scan, into: &batch) { batch in
                guard batch.count == 7 else { return true }
                packed += (0..<batch.count).map { batch[$0] }
                batch.removeAll()
                return true
            }
            packed += (0..<batch.count).map { batch[$0] }
            try expectEqual(packed, rows, "same rows")
            try expectEqual(packed.first { $0.eventID == "empty" }?.customerID, "", "an empty text stays empty")
            try expectEqual(packed.first { $0.eventID == "bare" }?.customerID, nil, "NULL stays absent")
            // Stopping: body's false ends the scan after the row it was handed.
            var handed = 0
            var stopped = StoredEventBatch()
            try storage.scanEvents(scan, into: &stopped) { _ in
                handed += 1
                return handed < 5
            }
            try expectEqual(handed, 5, "stopped")
            try expectEqual((0..<stopped.count).map { stopped[$0] }, Array(rows.prefix(5)), "rows up to the stop")
        },
        StorageConformance("scanEvents over more rows than one read of a backend: all, in order, resumable") {
            storage in
            // 2,500 events over 5 installs and 11 visits (one of them none), in an order that mixes them: more
            // than one query's worth for a backend that reads in chunks (PostgreSQL: 125, doubling to 1,000).
            let total = 2_500
            let events = (0..<total).map { number in
                visitEvent("e\(number)", "i\(number % 5)", number % 11 == 0 ? nil : "v\(number % 7)")
            }
            for start in stride(from: 0, to: total, by: 500) {
                _ = try storage.commit([Sample.batch(Array(events[start..<(start + 500)]))])
            }
            let last = try storage.lastSequence()
            var rows: [StoredEventColumns] = []
            try storage.scanEvents(EventScan(workspace: "acme", throughSequence: last)) { row in
                rows.append(row)
                return true
            }
            try expectEqual(Set(rows.map(\.eventID)), Set(events.map(\.eventID)), "every event once")
            try expectEqual(rows.count, total, "no event twice")
            func key(_ row: StoredEventColumns) -> (String, Int, String, Int64) {
                (row.installID, row.visitID == nil ? 0 : 1, row.visitID ?? "", row.sequence)
            }
            for index in rows.indices.dropFirst() where !(key(rows[index - 1]) < key(rows[index])) {
                throw ConformanceFailure("out of visit order at \(index): \(rows[index].eventID)")
            }
            // Resumed at a chunk's edge and just past it: the rest of the order.
            for index in [999, 1_000, 1_001, 2_499] {
                let scan = EventScan(workspace: "acme", start: rows[index].position, throughSequence: last)
                try expectEqual(try scanned(storage, scan), rows[index...].map(\.eventID), "from row \(index)")
            }
        },
    ]
}
