import GronaMockJSON

/// `GET /_mock/events/violations`'s body written straight into bytes, the same bytes as `json(query)`
/// serialized (a test compares the two), without the tree in between.
///
/// With every visit violating, a page of 1,000 violations is some 280 KB of JSON, and its `JSONValue` tree (an
/// object, two arrays and four strings per violation, each member a heap box) cost more to build, serialize
/// and free than checking the page's events; an unpaged answer held the tree and the bytes at once, several
/// times the answer's size (issue 32).
extension ViolationReport {
    func encoded(_ query: ViolationQuery) -> [UInt8] {
        if query.summary { return json(query).serialized() }
        var output: [UInt8] = []
        output.reserveCapacity(64 + violations.count * 288)
        output.append(contentsOf: #"{"workspaceKey":"#.utf8)
        JSONWriter.writeString(workspaceKey, to: &output)
        output.append(contentsOf: #","violations":["#.utf8)
        // By index: each violation written where it lies, not copied out (and its arrays retained) first.
        for position in violations.indices {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            violations[position].write(to: &output)
        }
        output.append(contentsOf: #"],"checkedEvents":"#.utf8)
        JSONWriter.writeNumber(JSONNumber(checkedEvents), to: &output)
        if query.limit != nil {
            output.append(contentsOf: #","nextCursor":"#.utf8)
            if let nextCursor {
                JSONWriter.writeString(nextCursor, to: &output)
            } else {
                output.append(contentsOf: "null".utf8)
            }
        }
        output.append(UInt8(ascii: "}"))
        return output
    }
}

extension Violation {
    /// Appends `json` serialized: `{"rule", "events", "eventIDs", "message"}`, `eventCount` before `message` when
    /// the lists were cut short.
    func write(to output: inout [UInt8]) {
        output.append(contentsOf: #"{"rule":"#.utf8)
        JSONWriter.writeString(rule.rawValue, to: &output)
        output.append(contentsOf: #","events":["#.utf8)
        for (position, sequence) in events.enumerated() {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            JSONWriter.writeNumber(JSONNumber(sequence), to: &output)
        }
        output.append(contentsOf: #"],"eventIDs":["#.utf8)
        for position in eventIDs.indices {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(eventIDs[position], to: &output)
        }
        output.append(UInt8(ascii: "]"))
        if isCut {
            output.append(contentsOf: #","eventCount":"#.utf8)
            JSONWriter.writeNumber(JSONNumber(Int64(eventCount)), to: &output)
        }
        output.append(contentsOf: #","message":""#.utf8)
        // The sentence written in pieces, never made into a `String` (`ViolationSentence`); the bytes are
        // swapped in and out, never shared, so no append copies the page.
        var sentence = JSONSentence(output: [])
        swap(&sentence.output, &output)
        self.sentence.write(events: events, eventCount: eventCount, to: &sentence)
        swap(&sentence.output, &output)
        output.append(contentsOf: #""}"#.utf8)
    }
}
