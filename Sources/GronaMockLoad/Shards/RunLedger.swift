import GronaMockJSON

/// What a shard's `--verify` would need, carried in its `--json` report so that `grona-mock load merge --verify`
/// can check the whole run at once: the events each install logged and which the service acknowledged (ranges
/// of counters, a handful per install) or rejected, with when the shard started (for the merged run's span).
/// Installs are this shard's, from 0; `firstInstall` places them in the fleet.
package struct RunLedger: Sendable, Equatable {
    package var firstInstall: Int
    package var startedAtUnixMilliseconds: Int64
    package var logged: [UInt32]
    package var acknowledged: AcknowledgedEvents
    package var rejected: RejectedEvents

    package init(firstInstall: Int, result: LoadRunResult) {
        self.firstInstall = firstInstall
        startedAtUnixMilliseconds = result.startedAtUnixMilliseconds
        logged = result.loggedPerInstall
        acknowledged = result.acknowledged
        rejected = result.rejectedEvents
    }

    package var json: JSONValue {
        var ranges: [JSONValue] = []
        acknowledged.forEachRange { install, range in
            ranges += [install, Int(range.lowerBound), Int(range.upperBound)].map { .number(JSONNumber($0)) }
        }
        var rejectedIDs: [JSONValue] = []
        for (install, counter) in rejected.sorted {
            rejectedIDs += [.number(JSONNumber(install)), .number(JSONNumber(Int(counter)))]
        }
        return [
            "firstInstall": .number(JSONNumber(firstInstall)),
            "startedAtUnixMs": .number(JSONNumber(startedAtUnixMilliseconds)),
            "logged": .array(logged.map { .number(JSONNumber(Int($0))) }),
            "acknowledged": .array(ranges),
            "rejected": .array(rejectedIDs),
        ]
    }

    /// The ledger of a shard of `installs` installs, checked: every acknowledged or rejected event is one its
    /// install logged.
    package init(json: JSONValue, installs: Int) throws(ReportFormatError) {
        guard let first = json["firstInstall"]?.int64Value, first >= 0,
            let started = json["startedAtUnixMs"]?.int64Value,
            let logged = json["logged"]?.arrayValue, let ranges = json["acknowledged"]?.arrayValue,
            let rejected = json["rejected"]?.arrayValue
        else {
            throw ReportFormatError("events needs firstInstall, startedAtUnixMs, logged, acknowledged and rejected")
        }
        guard logged.count == installs else {
            throw ReportFormatError("events.logged has \(logged.count) installs, not the shard's \(installs)")
        }
        firstInstall = Int(first)
        startedAtUnixMilliseconds = started
        self.logged = []
        self.logged.reserveCapacity(installs)
        for value in logged {
            guard let count = value.int64Value, let counter = UInt32(exactly: count) else {
                throw ReportFormatError("events.logged holds \(value), not a count of events")
            }
            self.logged.append(counter)
        }
        acknowledged = AcknowledgedEvents(installs: installs)
        let numbers = try Self.triples(ranges, width: 3, name: "events.acknowledged")
        for triple in numbers {
            let (install, lower, upper) = (triple[0], triple[1], triple[2])
            guard install < installs, lower < upper, upper <= Int(self.logged[install]) else {
                throw ReportFormatError(
                    "events.acknowledged has install \(install) events \(lower)..<\(upper), which it did not log")
            }
            acknowledged.record(install: install, first: UInt32(lower), count: upper - lower)
        }
        self.rejected = RejectedEvents()
        for pair in try Self.triples(rejected, width: 2, name: "events.rejected") {
            guard pair[0] < installs, pair[1] < Int(self.logged[pair[0]]) else {
                throw ReportFormatError("events.rejected has install \(pair[0]) event \(pair[1]), which it did not log")
            }
            self.rejected.insert(install: pair[0], counter: UInt32(pair[1]))
        }
    }

    /// `values` as groups of `width` whole numbers from 0 to 2^32.
    private static func triples(_ values: [JSONValue], width: Int, name: String) throws(ReportFormatError) -> [[Int]] {
        guard values.count % width == 0 else {
            throw ReportFormatError("\(name) does not hold groups of \(width) numbers")
        }
        var groups: [[Int]] = []
        groups.reserveCapacity(values.count / width)
        var group: [Int] = []
        for value in values {
            guard let number = value.int64Value, (0...Int64(UInt32.max)).contains(number) else {
                throw ReportFormatError("\(name) holds \(value), not a whole number from 0")
            }
            group.append(Int(number))
            if group.count == width {
                groups.append(group)
                group = []
            }
        }
        return groups
    }
}
