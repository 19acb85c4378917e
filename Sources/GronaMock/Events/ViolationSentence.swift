import GronaMockJSON

/// A violation's sentence (`Violation.message`), kept as the values it names for the rules a broken SDK breaks
/// on every event (`repeated_in_visit`, `shown_in_control_or_holdout`, an offer shown without its grant), and
/// as its text for the others.
///
/// Why: with every visit violating, a page of 1,000 violations is 1,000 sentences, and making each a `String` on
/// the checking thread (the slower of the scan's two), only for the route to copy it into the page's JSON and
/// free it, was a tenth of that thread's work (issue 32). Kept as its parts, a sentence costs the retains of
/// strings the checker holds anyway, and is written once, straight into the page (`write(events:to:)` with a
/// `JSONSentence`); `message` makes the same text for whoever reads it as a `String`.
enum ViolationSentence: Sendable {
    case text(String)
    /// `4 served events (sequences 1, 2, 3, 4) for campaign "spring" in visit "v-1" (home_top on home, key
    /// "k"); the SDK logs served at most once per visit.`: the sequences are the violation's events, and its
    /// `eventCount` the group's size, more than those when they were cut short (`… 1000 and 4000 more) for
    /// campaign …`).
    case repeatedInVisit(
        type: EventType, campaignID: String, visitID: String, placement: Placement, screen: String, key: String?)
    /// `A served (sequence 7) in the control arm, where nothing is shown.`: the sequence is the violation's
    /// event.
    case shownInArm(type: EventType, arm: Arm)
    /// `An exposure (sequence 9) of offer "spring"/"v1", but no grant for it was issued to customer "c-1".`, or
    /// `… of offer "spring"/"v1" but names no customer, and grants are issued to customers.`
    case offerShownWithoutGrant(type: EventType, campaignID: String, variantID: String, customerID: String?)
    /// `An action (sequence 12) for campaign "spring" in visit "v-1" on home_top, which has no served event.`:
    /// the sequence is the violation's event.
    case actionWithoutServed(type: EventType, campaignID: String, visitID: String, placement: Placement)

    /// The sentence of a violation of `events` (the first `events.count` of `eventCount`), as text.
    func text(events: [Int64], eventCount: Int) -> String {
        if case .text(let text) = self { return text }
        var sentence = TextSentence()
        write(events: events, eventCount: eventCount, to: &sentence)
        return sentence.text
    }

    /// Writes the sentence of a violation of `events` into `sink`, piece by piece.
    func write<Sink: SentenceSink>(events: [Int64], eventCount: Int, to sink: inout Sink) {
        switch self {
        case .text(let text):
            sink.text(text)
        case .repeatedInVisit(let type, let campaignID, let visitID, let placement, let screen, let key):
            sink.number(Int64(eventCount))
            sink.literal(" ")
            sink.text(type.rawValue)
            sink.literal(" events (sequences ")
            for (index, sequence) in events.enumerated() {
                if index > 0 { sink.literal(", ") }
                sink.number(sequence)
            }
            if eventCount > events.count {
                sink.literal(" and ")
                sink.number(Int64(eventCount - events.count))
                sink.literal(" more")
            }
            sink.literal(") for campaign ")
            sink.quoted(campaignID)
            sink.literal(" in visit ")
            sink.quoted(visitID)
            sink.literal(" (")
            sink.text(placement.rawValue)
            sink.literal(" on ")
            sink.text(screen)
            if let key {
                sink.literal(", key ")
                sink.quoted(key)
            }
            sink.literal("); the SDK logs ")
            sink.text(type.rawValue)
            sink.literal(" at most once per visit.")
        case .shownInArm(let type, let arm):
            Self.writeKind(type: type, events: events, to: &sink)
            sink.literal(" in the ")
            sink.text(arm.rawValue)
            sink.literal(" arm, where nothing is shown.")
        case .offerShownWithoutGrant(let type, let campaignID, let variantID, let customerID):
            Self.writeKind(type: type, events: events, to: &sink)
            sink.literal(" of offer ")
            sink.quoted(campaignID)
            sink.literal("/")
            sink.quoted(variantID)
            guard let customerID else {
                sink.literal(" but names no customer, and grants are issued to customers.")
                return
            }
            sink.literal(", but no grant for it was issued to customer ")
            sink.quoted(customerID)
            sink.literal(".")
        case .actionWithoutServed(let type, let campaignID, let visitID, let placement):
            Self.writeKind(type: type, events: events, to: &sink)
            sink.literal(" for campaign ")
            sink.quoted(campaignID)
            sink.literal(" in visit ")
            sink.quoted(visitID)
            sink.literal(" on ")
            sink.text(placement.rawValue)
            sink.literal(", which has no served event.")
        }
    }

    /// `A served (sequence 7)`: the event a one-event violation names, as `CheckedEvent.kind` writes it.
    private static func writeKind<Sink: SentenceSink>(type: EventType, events: [Int64], to sink: inout Sink) {
        sink.text(CheckedEvent.article(type.rawValue))
        sink.literal(" ")
        sink.text(type.rawValue)
        sink.literal(" (sequence ")
        sink.number(events.first ?? 0)
        sink.literal(")")
    }
}

/// Where a sentence is written: literal words, texts as they are, ids quoted as `Quote.text` quotes them, and
/// numbers in decimal.
protocol SentenceSink {
    mutating func literal(_ words: StaticString)
    mutating func text(_ text: String)
    mutating func quoted(_ text: String)
    mutating func number(_ number: Int64)
}

/// A sentence made into a `String`.
struct TextSentence: SentenceSink {
    var text = ""

    init() {
        text.reserveCapacity(160)
    }

    mutating func literal(_ words: StaticString) {
        words.withUTF8Buffer { text += String(decoding: $0, as: UTF8.self) }
    }

    mutating func text(_ text: String) {
        self.text += text
    }

    mutating func quoted(_ text: String) {
        Quote.append(text, to: &self.text)
    }

    mutating func number(_ number: Int64) {
        text += String(number)
    }
}

/// A sentence written into JSON bytes as the inside of a string: what `JSONWriter.writeString` writes for its
/// `TextSentence`, without the quotes (a test compares the two).
struct JSONSentence: SentenceSink {
    var output: [UInt8]

    /// Copied as it is: the sentences' words are plain ASCII with nothing to escape (checked in debug builds;
    /// the sentence tests write every one and compare with `JSONWriter.writeString`), and scanning them for
    /// escapes was some 70 to 100 bytes of every violation scanned for nothing.
    mutating func literal(_ words: StaticString) {
        words.withUTF8Buffer { utf8 in
            assert(utf8.allSatisfy(Quote.isPlain), "a sentence's words need no escape")
            output.append(contentsOf: utf8)
        }
    }

    mutating func text(_ text: String) {
        var text = text
        text.withUTF8 { JSONWriter.writeStringContents($0, to: &output) }
    }

    mutating func quoted(_ text: String) {
        var text = text
        let plain = text.withUTF8 { utf8 in
            // Plain (`Quote.isPlain`): printable ASCII with no quote or backslash, so nothing inside needs
            // escaping, and it is copied as it is, in the same pass over its bytes.
            guard utf8.count <= Quote.longestPlain, utf8.allSatisfy(Quote.isPlain) else { return false }
            output.append(contentsOf: #"\""#.utf8)
            output.append(contentsOf: utf8)
            output.append(contentsOf: #"\""#.utf8)
            return true
        }
        if !plain { self.text(Quote.text(text)) }
    }

    mutating func number(_ number: Int64) {
        JSONWriter.writeNumber(JSONNumber(number), to: &output)
    }
}
