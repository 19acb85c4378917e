import GronaMock

extension StorageConformance {
    static let writingChecks: [StorageConformance] = [
        StorageConformance("a batch is stored, and a repeated eventID is a duplicate") { storage in
            let first = try storage.commit([Sample.batch([Sample.event("a"), Sample.event("b")])])
            try expectEqual(first, [.batch(EventBatchResult(accepted: 2, duplicateIndexes: []))], "first batch")
            let again = try storage.commit([Sample.batch([Sample.event("b"), Sample.event("c")])])
            try expectEqual(again, [.batch(EventBatchResult(accepted: 1, duplicateIndexes: [0]))], "second batch")
            try expectEqual(try storage.eventCount(), 3, "eventCount")
            try expectEqual(try Sample.all(storage).map(\.json), ["a", "b", "c"].map { Sample.event($0).json }, "json")
        },
        StorageConformance("duplicates are reported by their position in the batch, repeats within it too") { storage in
            _ = try storage.commit([Sample.batch([Sample.event("a")])])
            let outcome = try storage.commit([
                Sample.batch([Sample.event("x"), Sample.event("a"), Sample.event("y"), Sample.event("x")])
            ])
            try expectEqual(outcome, [.batch(EventBatchResult(accepted: 2, duplicateIndexes: [1, 3]))], "outcome")
            try expectEqual(try Sample.all(storage).map(\.json), ["a", "x", "y"].map { Sample.event($0).json }, "json")
        },
        StorageConformance("every field of a packed event is stored, absent ones as absent") { storage in
            let full = Sample.event("é-ünï", campaign: "spring", install: "install-ü")
            var bare = EventRecord(
                workspaceKey: "acme", eventID: "bare", type: "purchase", timestamp: 5, receivedAt: 6,
                correctedTimestamp: 7, installID: "install-1", json: Array("{}".utf8))
            bare.totalMinor = 4_200
            _ = try storage.commit([Sample.batch([full, bare])])
            let stored = try Sample.all(storage)
            try expectEqual(stored.map(\.json), [full.json, bare.json], "json")
            try expectEqual(stored.map(\.installID), ["install-ü", "install-1"], "installID")
            try expectEqual(stored.map(\.correctedTimestamp), [full.correctedTimestamp, 7], "correctedTimestamp")
            var filter = EventFilter()
            filter.customerID = "customer-1"
            try expectEqual(try storage.count(matching: filter), 1, "customerID of one event, absent on the other")
            filter = EventFilter()
            filter.campaignID = "spring"
            filter.installID = "install-ü"
            try expectEqual(try storage.count(matching: filter), 1, "campaignID and installID")
        },
        StorageConformance("the same eventID in two workspaces is two events") { storage in
            _ = try storage.commit([
                Sample.batch([Sample.event("a")]),
                Sample.batch([Sample.event("a", workspace: "other")], workspace: "other"),
            ])
            try expectEqual(try storage.eventCount(), 2, "eventCount")
        },
        StorageConformance("one group commit answers each change in order") { storage in
            let outcomes = try storage.commit([
                Sample.batch([Sample.event("a")]), .probe, Sample.batch([Sample.event("a")]),
                .deleteEvents(workspaceKey: "nobody"),
            ])
            try expectEqual(
                outcomes,
                [
                    .batch(EventBatchResult(accepted: 1, duplicateIndexes: [])), .probed,
                    .batch(EventBatchResult(accepted: 0, duplicateIndexes: [0])), .deleted(events: 0),
                ], "outcomes")
        },
        StorageConformance("a stored event keeps the server's fields") { storage in
            _ = try storage.commit([Sample.batch([Sample.event("a", install: "install-9", timestamp: 7_000)])])
            guard let event = try Sample.all(storage).first else { throw ConformanceFailure("no event stored") }
            try expectEqual(event.workspaceKey, "acme", "workspaceKey")
            try expectEqual(event.installID, "install-9", "installID")
            try expectEqual(event.receivedAt, 7_005, "receivedAt")
            try expectEqual(event.correctedTimestamp, 7_001, "correctedTimestamp")
            try expectEqual(try storage.lastSequence(), event.sequence, "lastSequence")
        },
        StorageConformance("deleting one workspace keeps the others, and their rejections go too") { storage in
            _ = try storage.commit([
                Sample.batch([Sample.event("a"), Sample.event("b")], rejected: [Sample.rejection(2)]),
                Sample.batch([Sample.event("c", workspace: "other")], workspace: "other"),
            ])
            try expectEqual(try storage.commit([.deleteEvents(workspaceKey: "acme")]), [.deleted(events: 2)], "delete")
            try expectEqual(try storage.eventCount(), 1, "eventCount after delete")
            try expectEqual(
                try storage.rejectedEvents(workspace: "acme", page: EventPage()).rows.count, 0, "rejections left")
            try expectEqual(try storage.commit([.deleteEvents(workspaceKey: nil)]), [.deleted(events: 1)], "delete all")
            try expectEqual(try storage.lastSequence(), 0, "lastSequence when empty")
        },
        StorageConformance("dropping the oldest keeps the newest events and rejections") { storage in
            _ = try storage.commit([
                Sample.batch(
                    (1...5).map { Sample.event("e\($0)") }, rejected: (0..<4).map { Sample.rejection($0) })
            ])
            try storage.dropOldestEvents(3, keepingRejected: 2)
            try expectEqual(try Sample.all(storage).map(\.json), ["e4", "e5"].map { Sample.event($0).json }, "kept")
            let rejected = try storage.rejectedEvents(workspace: nil, page: EventPage()).rows.map(\.record.index)
            try expectEqual(rejected, [2, 3], "rejections kept")
            try expectEqual(try storage.eventCount(), 2, "eventCount")
        },
        StorageConformance("rejected events are kept with their reasons") { storage in
            _ = try storage.commit([Sample.batch([], rejected: [Sample.rejection(0), Sample.rejection(1)])])
            let rows = try storage.rejectedEvents(workspace: "acme", page: EventPage()).rows
            try expectEqual(rows.map(\.record), [Sample.rejection(0), Sample.rejection(1)], "rejected records")
            try expectEqual(
                try storage.rejectedEvents(workspace: "other", page: EventPage()).rows.count, 0, "other workspace")
        },
    ]

    static let listingChecks: [StorageConformance] = [
        StorageConformance("pages follow the cursor oldest first, newest first, with no gap and no repeat") { storage in
            _ = try storage.commit([Sample.batch((1...25).map { Sample.event(Sample.padded($0)) })])
            let ids = (1...25).map { Sample.event(Sample.padded($0)).json }
            try expectEqual(try Sample.all(storage, limit: 4).map(\.json), ids, "oldest first")
            try expectEqual(try Sample.all(storage, limit: 7, newestFirst: true).map(\.json), ids.reversed(), "newest")
            var page = EventPage()
            page.limit = 25
            try expectEqual(try storage.events(matching: EventFilter(), page: page).nextCursor, nil, "exact last page")
        },
        StorageConformance("a cursor past the end gives an empty last page") { storage in
            _ = try storage.commit([Sample.batch([Sample.event("a")])])
            var page = EventPage()
            page.cursor = Int64.max
            let stored = try storage.events(matching: EventFilter(), page: page)
            try expectEqual(stored.rows.count, 0, "rows")
            try expectEqual(stored.nextCursor, nil, "nextCursor")
        },
    ]

    static let filterChecks: [StorageConformance] = [
        StorageConformance("every filter field matches exactly, and count agrees with the listing") { storage in
            _ = try storage.commit([
                Sample.batch([
                    Sample.event("a", type: "exposure", campaign: "spring", arm: "treatment", install: "i1"),
                    Sample.event("b", type: "served", campaign: "summer", arm: "control", install: "i2"),
                    Sample.event("c", type: "served", campaign: "spring", arm: "control", install: "i1"),
                ])
            ])
            for (field, value, expected) in [
                (EventFilter.Field.type, "served", 2), (.campaignID, "spring", 2), (.arm, "control", 2),
                (.installID, "i1", 2), (.workspace, "acme", 3), (.workspace, "other", 0), (.variantID, "v1", 3),
                (.placement, "home_top", 3), (.customerID, "customer-1", 3), (.visitID, "visit-1", 3),
                (.campaignID, "spring'; --", 0),
            ] {
                var filter = EventFilter()
                filter[keyPath: field.keyPath] = value
                try expectEqual(try Sample.all(storage, filter).count, expected, "listing \(field)=\(value)")
                try expectEqual(try storage.count(matching: filter), expected, "count \(field)=\(value)")
            }
            try expectEqual(EventFilter.Field.allCases.count, 9, "fields covered by this check")
        },
        StorageConformance("since is inclusive and until exclusive, on the event's timestamp") { storage in
            _ = try storage.commit([
                Sample.batch([1_000, 2_000, 3_000].map { Sample.event("t\($0)", timestamp: $0) })
            ])
            var filter = EventFilter()
            filter.since = 2_000
            filter.until = 3_000
            try expectEqual(try Sample.all(storage, filter).map(\.json), [Sample.event("t2000").json], "window")
        },
        StorageConformance("a continued count equals a fresh one across stores, deletes and drops") { storage in
            var filter = EventFilter()
            filter.workspace = "acme"
            filter.type = "served"
            var tally: EventTally?
            func expectCount(_ expected: Int, _ what: String) throws {
                tally = try storage.count(matching: filter, continuing: tally)
                try expectEqual(tally?.count, expected, "continued count \(what)")
                try expectEqual(try storage.count(matching: filter), expected, "fresh count \(what)")
            }
            try expectCount(0, "when empty")
            _ = try storage.commit([Sample.batch([Sample.event("a", type: "served"), Sample.event("b")])])
            try expectCount(1, "after the first batch")
            _ = try storage.commit([
                Sample.batch([Sample.event("c", type: "served"), Sample.event("d", type: "served")]),
                Sample.batch([Sample.event("x", workspace: "other", type: "served")], workspace: "other"),
            ])
            try expectCount(3, "after the second")
            _ = try storage.commit([.deleteEvents(workspaceKey: "acme")])
            try expectCount(0, "after the workspace's events were deleted")
            _ = try storage.commit([
                Sample.batch([Sample.event("e", type: "served"), Sample.event("f", type: "served")])
            ])
            try expectCount(2, "after storing again")
            try storage.dropOldestEvents(2, keepingRejected: 0)
            try expectCount(1, "after the oldest two were dropped")
            _ = try storage.commit([.deleteEvents(workspaceKey: nil)])
            _ = try storage.commit([Sample.batch([Sample.event("g", type: "served")])])
            try expectCount(1, "after everything was deleted and one stored")
        },
    ]

    static let summaryChecks: [StorageConformance] = [
        StorageConformance("campaign counts by type and arm, purchases attributed once per campaign") { storage in
            let treatments = [
                ClaimedTreatment(
                    campaignID: "spring", variantID: "v1", placement: "home_top", type: "percent_off", valueMilli: 10),
                ClaimedTreatment(
                    campaignID: "spring", variantID: "v1", placement: "pdp", type: "percent_off", valueMilli: 10),
            ]
            _ = try storage.commit([
                Sample.batch([
                    Sample.event("a", type: "exposure"), Sample.event("b", type: "exposure"),
                    Sample.event("c", type: "exposure", arm: "control"), Sample.event("d", type: "served", demo: true),
                    Sample.event(
                        "p", type: "purchase", campaign: nil, variant: nil, arm: nil, treatments: treatments,
                        totalMinor: 4_200),
                ])
            ])
            let counts = try storage.campaignCounts(workspace: "acme")
            let types = counts.types.map { "\($0.campaignID)/\($0.arm)/\($0.type)/\($0.demo)=\($0.count)" }.sorted()
            try expectEqual(
                types,
                [
                    "spring/control/exposure/false=1", "spring/treatment/exposure/false=2",
                    "spring/treatment/served/true=1",
                ],
                "type counts")
            try expectEqual(
                counts.attributed,
                [
                    CampaignCounts.Attributed(
                        campaignID: "spring", variantID: "v1", demo: false, purchases: 1, revenueMinor: 4_200)
                ], "attributed purchases")
            try expectEqual(
                try storage.campaignCounts(workspace: "other"), CampaignCounts(types: [], attributed: []), "other")
        },
        StorageConformance("campaign counts follow duplicates, deletes and the oldest events dropped") { storage in
            func counts(_ workspace: String = "acme") throws -> [String] {
                try storage.campaignCounts(workspace: workspace).types.map {
                    "\($0.campaignID)/\($0.variantID)/\($0.arm)/\($0.type)=\($0.count)"
                }.sorted()
            }
            // As the writer does: upkeep after every commit.
            func commit(_ changes: [StorageChange]) throws {
                _ = try storage.commit(changes)
                try storage.maintainAfterCommit()
            }
            try commit([
                Sample.batch([
                    Sample.event("a"), Sample.event("b"), Sample.event("c", type: "served"),
                    Sample.event("n", variant: nil, arm: nil),
                ])
            ])
            // Duplicates are not stored, so not counted.
            try commit([Sample.batch([Sample.event("a"), Sample.event("b")])])
            try commit([Sample.batch([Sample.event("x", workspace: "other")], workspace: "other")])
            try expectEqual(
                try counts(),
                ["spring///exposure=1", "spring/v1/treatment/exposure=2", "spring/v1/treatment/served=1"],
                "after the first commits")
            // a and b are the oldest two: their group goes, the others stay.
            try storage.dropOldestEvents(2, keepingRejected: 0)
            try expectEqual(
                try counts(), ["spring///exposure=1", "spring/v1/treatment/served=1"], "after dropping the oldest two")
            try commit([Sample.batch([Sample.event("a")])])
            try expectEqual(
                try counts(),
                ["spring///exposure=1", "spring/v1/treatment/exposure=1", "spring/v1/treatment/served=1"],
                "an eventID stored again after its event was dropped")
            // The newest events go: their sequence numbers may be given again, and the new events must count.
            try commit([.deleteEvents(workspaceKey: "acme")])
            try expectEqual(try counts(), [], "after deleting the workspace")
            try expectEqual(try counts("other"), ["spring/v1/treatment/exposure=1"], "the other workspace")
            try commit([Sample.batch([Sample.event("d"), Sample.event("e", type: "served")])])
            try commit([Sample.batch([Sample.event("f")])])
            try expectEqual(
                try counts(), ["spring/v1/treatment/exposure=2", "spring/v1/treatment/served=1"],
                "events stored after the delete")
            try commit([.deleteEvents(workspaceKey: nil)])
            try expectEqual(try counts("other"), [], "after deleting everything")
            try commit([Sample.batch([Sample.event("g")])])
            try expectEqual(
                try counts(), ["spring/v1/treatment/exposure=1"], "the first event after deleting everything")
            try storage.dropOldestEvents(1, keepingRejected: 0)
            try commit([Sample.batch([Sample.event("h", type: "served")])])
            try expectEqual(try counts(), ["spring/v1/treatment/served=1"], "after dropping every event")
        },
        StorageConformance("attributed revenue past Int64's range is clamped, never an error") { storage in
            // The validator lets totalMinor reach 10^15; about 9,224 such purchases pass Int64.max.
            let treatment = ClaimedTreatment(
                campaignID: "spring", variantID: "v1", placement: "home_top", type: "percent_off", valueMilli: 10)
            let purchases = (0..<10_000).map { number in
                Sample.event(
                    "p\(number)", type: "purchase", campaign: nil, variant: nil, arm: nil, treatments: [treatment],
                    totalMinor: 1_000_000_000_000_000)
            }
            _ = try storage.commit([Sample.batch(purchases)])
            try expectEqual(
                try storage.campaignCounts(workspace: "acme").attributed,
                [
                    CampaignCounts.Attributed(
                        campaignID: "spring", variantID: "v1", demo: false, purchases: 10_000, revenueMinor: .max)
                ], "clamped revenue")
        },
    ]

    static let revisionChecks: [StorageConformance] = [
        StorageConformance("a revision is reused for the same content and grows for new content") { storage in
            func make(_ document: String) -> (Int64) -> StoredConfigRevision {
                { revision in
                    StoredConfigRevision(
                        revision: revision, contentHash: Array(document.utf8), issuedAt: 100 + revision,
                        document: Array(document.utf8))
                }
            }
            try expectEqual(try storage.latestConfigRevision(for: "acme"), nil, "before any")
            let first = try storage.configRevision(for: "acme", contentHash: Array("one".utf8), make: make("one"))
            try expectEqual(first.revision, 1, "first revision")
            let same = try storage.configRevision(for: "acme", contentHash: Array("one".utf8), make: make("changed"))
            try expectEqual(same, first, "same content")
            let second = try storage.configRevision(for: "acme", contentHash: Array("two".utf8), make: make("two"))
            try expectEqual(second.revision, 2, "second revision")
            try expectEqual(try storage.latestConfigRevision(for: "acme"), second, "latest")
            let other = try storage.configRevision(for: "other", contentHash: Array("one".utf8), make: make("one"))
            try expectEqual(other.revision, 1, "another workspace counts alone")
        },
        StorageConformance("a failed signing stores nothing") { storage in
            struct SigningFailed: Error {}
            do {
                _ = try storage.configRevision(for: "acme", contentHash: [1]) { _ in throw SigningFailed() }
                throw ConformanceFailure("the error of make was not passed on")
            } catch is SigningFailed {}
            try expectEqual(try storage.latestConfigRevision(for: "acme"), nil, "after a failure")
        },
    ]
}
