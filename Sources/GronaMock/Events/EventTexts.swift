import GronaMockJSON

/// Each event of a batch as it is stored, written from the batch's own text rather than from its parsed value:
/// `JSONWriter.writeCompacting` gives the very bytes `serialized()` would, in one pass over the event's text
/// whose place the parser noted as it read it (issue 14: writing every event again was a seventh of the event
/// loops' time).
struct EventTexts {
    private let body: [UInt8]
    private let ranges: [Range<Int>]

    /// Nil unless there is one range for each of `count` events (the parser found no `events` array to note).
    init?(body: [UInt8], ranges: [Range<Int>], count: Int) {
        guard ranges.count == count else { return nil }
        self.body = body
        self.ranges = ranges
    }

    /// The compact JSON of the event at `index` of the batch.
    func json(at index: Int) -> [UInt8] {
        JSONWriter.compacted(body, range: ranges[index])
    }
}
