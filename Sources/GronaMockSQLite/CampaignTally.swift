import GronaMock

/// The writer's running count of the events stored past the fold mark, by campaign group: what the next fold
/// writes into `campaign_event_counts` (`SQLiteStorage+CampaignCounts`).
///
/// Counting in memory as rows are bound costs the writer a key built in a reused buffer and one dictionary
/// lookup per event. Grouping the same events back out of the table with SQL cost it 1.6 µs per event, a fifth
/// of its time per event at full load (bench/README.md).
///
/// It is exact only while it has seen every event past the mark: a commit that failed may have counted events
/// that were rolled back, so it is then `invalid`, and the next fold counts from the table instead. So does a
/// fold that finds more events past the mark than this writer stored (another process writing to the file).
struct CampaignTally {
    /// One group's key: each text field's length (four bytes) and bytes, then the demo flag.
    private struct Key: Hashable {
        var bytes: [UInt8]

        /// The bytes in one call: an array's own hashing feeds the hasher one byte at a time, which was 5 % of
        /// the writer's time at half the fleet's peak (`perf record`).
        func hash(into hasher: inout Hasher) { bytes.withUnsafeBytes { hasher.combine(bytes: $0) } }
    }

    private var counts: [Key: Int64] = [:]
    /// Events this writer stored since the last fold, with a campaign or not.
    private(set) var events: Int64 = 0
    /// False from the start (events may be past the mark from an earlier run) and after a failed commit.
    var isValid = false
    private var scratch: [UInt8] = []

    /// Counts one stored event without a campaign.
    mutating func addWithoutCampaign() { events += 1 }

    /// Counts one stored event whose fields lie in `bytes`.
    mutating func add(
        _ bytes: UnsafeBufferPointer<UInt8>, workspace: EventRows.Field, campaign: EventRows.Field,
        variant: EventRows.Field?, arm: EventRows.Field?, demo: Bool, type: EventRows.Field
    ) {
        scratch.removeAll(keepingCapacity: true)
        append(workspace, from: bytes)
        append(campaign, from: bytes)
        append(variant, from: bytes)
        append(arm, from: bytes)
        append(type, from: bytes)
        scratch.append(demo ? 1 : 0)
        let key = Key(bytes: scratch)
        if let index = counts.index(forKey: key) {
            counts.values[index] += 1
        } else {
            counts[key] = 1
        }
        events += 1
    }

    /// A field's length and bytes; a missing one as empty (the table's '' for a missing variant or arm).
    private mutating func append(_ field: EventRows.Field?, from bytes: UnsafeBufferPointer<UInt8>) {
        Self.appendLength(field?.count ?? 0, to: &scratch)
        guard let field, field.count > 0 else { return }
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[field.offset..<field.offset + field.count]))
    }

    private static func appendLength(_ count: Int, to key: inout [UInt8]) {
        for shift in stride(from: 24, through: 0, by: -8) { key.append(UInt8(truncatingIfNeeded: count >> shift)) }
    }

    /// Forgets the groups of a workspace whose events were deleted (every workspace's for nil).
    mutating func remove(workspace: String?) {
        guard let workspace else { return reset() }
        let prefix = Self.encode(Array(workspace.utf8))
        counts = counts.filter { !$0.key.bytes.starts(with: prefix) }
    }

    /// Empty and exact: after a fold, and after a fold that counted from the table.
    mutating func reset() {
        counts.removeAll(keepingCapacity: true)
        events = 0
        isValid = true
    }

    /// The groups as the table's columns: workspace, campaign, variant, arm, type, demo and count.
    var groups: [(fields: [String], demo: Bool, count: Int64)] {
        counts.compactMap { group, count in
            let key = group.bytes
            var fields: [String] = []
            var position = 0
            for _ in 0..<5 {
                guard position + 4 <= key.count else { return nil }
                let length = key[position..<position + 4].reduce(0) { $0 << 8 | Int($1) }
                position += 4
                guard position + length <= key.count else { return nil }
                fields.append(String(decoding: key[position..<position + length], as: UTF8.self))
                position += length
            }
            guard position < key.count else { return nil }
            return (fields, key[position] != 0, count)
        }
    }

    private static func encode(_ field: [UInt8]) -> [UInt8] {
        var key: [UInt8] = []
        appendLength(field.count, to: &key)
        return key + field
    }
}
