/// `grona-mock load --replay FILE`: the file read once before anything is sent, so that a line that is not an
/// event is reported (by number) before the service sees a single batch, and the run knows its installs. Memory
/// is the installs' ids, never the events: the events are read again, one at a time, as they fall due
/// (`ReplayFeed`).
package struct ReplayPlan: Sendable, Equatable {
    package let path: String
    /// Inter-arrival times are divided by it: 2 replays twice as fast.
    package let speed: Double
    /// The file's installs in the order they first appear; an install's index is its place here.
    package let installIDs: [String]
    let installIndex: [String: Int]
    /// Events that will be sent.
    package let events: Int
    /// Lines that are not events: their count, and the first ten with why.
    package let badLines: Int
    package let sampleBadLines: [String]
    /// The first event's timestamp and the latest one's (Unix epoch milliseconds).
    package let firstTimestamp: Int64
    package let lastTimestamp: Int64

    /// The most distinct installs a replay keeps (`--installs`' limit).
    package static let maximumInstalls = 1_000_000

    /// Reads `path` through once. Empty lines are skipped; any other line that is not an event is counted.
    package init(path: String, speed: Double) throws(ReplayFileError) {
        self.path = path
        self.speed = speed
        let lines = try NDJSONLines(path: path)
        var installIDs: [String] = []
        var installIndex: [String: Int] = [:]
        var events = 0
        var badLines = 0
        var samples: [String] = []
        var first: Int64?
        var last: Int64 = 0
        while let line = try lines.next() {
            guard !line.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) || line.tooLong else { continue }
            let event: ReplayEvent
            do {
                guard !line.tooLong else {
                    throw ReplayFileError("longer than \(NDJSONLines.maximumLineBytes) bytes")
                }
                event = try ReplayEvent(line: line.bytes)
            } catch {
                badLines += 1
                if samples.count < 10 { samples.append("line \(line.number): \(error)") }
                continue
            }
            if installIndex[event.installID] == nil {
                guard installIDs.count < Self.maximumInstalls else {
                    throw ReplayFileError(
                        "line \(line.number): more than \(Self.maximumInstalls) installs in one replay")
                }
                installIndex[event.installID] = installIDs.count
                installIDs.append(event.installID)
            }
            events += 1
            if first == nil { first = event.timestamp }
            last = max(last, event.timestamp)
        }
        self.installIDs = installIDs
        self.installIndex = installIndex
        self.events = events
        self.badLines = badLines
        sampleBadLines = samples
        firstTimestamp = first ?? 0
        lastTimestamp = max(last, first ?? 0)
    }

    /// How long the replay's events take to fall due, at `speed`.
    package var durationSeconds: Double { Double(lastTimestamp - firstTimestamp) / 1000 / speed }

    /// `--speed X`: a positive factor, at most a million.
    package static func speed(_ text: String) throws(LoadSettings.OptionError) -> Double {
        guard let value = Double(text), value.isFinite, value > 0, value <= 1_000_000 else {
            throw LoadSettings.OptionError(
                "--speed must be a factor above 0 up to 1000000 (2 is twice as fast), not \"\(text)\"")
        }
        return value
    }
}

/// The replay's events as they fall due: the file read a second time, one line ahead of the clock. An event
/// is due `(its timestamp - the first one's) / speed` after the run's start; a timestamp earlier than one
/// before it (a capture is not always in order) is due at once rather than in the past.
final class ReplayFeed {
    let plan: ReplayPlan
    private let lines: NDJSONLines
    private let start: UInt64
    private var highest: Int64
    private var upcoming: (event: ReplayEvent, install: Int, due: UInt64)?
    /// Each install's last visit, to count visits as the replay starts them.
    var lastVisit: [String?]
    /// Lines skipped in this pass (changed since the plan read them); a read error ends the feed.
    private(set) var skipped = 0
    private(set) var readError: ReplayFileError?

    init(plan: ReplayPlan, start: UInt64) throws(ReplayFileError) {
        self.plan = plan
        self.start = start
        lines = try NDJSONLines(path: plan.path)
        highest = plan.firstTimestamp
        lastVisit = Array(repeating: nil, count: plan.installIDs.count)
        advance()
    }

    /// When the next event falls due (monotonic nanoseconds), nil once the file is done.
    var nextDue: UInt64? { upcoming?.due }

    var isFinished: Bool { upcoming == nil }

    /// The next event if it is due by `now`.
    func pop(now: UInt64) -> (event: ReplayEvent, install: Int, due: UInt64)? {
        guard let next = upcoming, next.due <= now else { return nil }
        advance()
        return next
    }

    private func advance() {
        upcoming = nil
        do {
            while let line = try lines.next() {
                guard !line.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) || line.tooLong else { continue }
                guard !line.tooLong, let event = try? ReplayEvent(line: line.bytes),
                    let install = plan.installIndex[event.installID]
                else {
                    skipped += 1
                    continue
                }
                highest = max(highest, event.timestamp)
                let offset = Double(highest - plan.firstTimestamp) / plan.speed * 1e6
                upcoming = (event, install, start &+ UInt64(min(offset, 8.64e16)))
                return
            }
        } catch {
            readError = error
        }
    }
}
