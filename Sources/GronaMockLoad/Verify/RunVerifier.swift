import GronaMockJSON
import GronaMockPlatform

/// `--verify` against a grona-mock: pages through the workspace's stored events (`GET /_mock/events`, oldest
/// first, `limit` 1000 and `cursor`), keeps the run's own (their eventIDs start with the run's tag), and
/// compares them with what the run got a 200 for; then counts the contract violations
/// (`GET /_mock/events/violations`, paged) that involve the run's events. Linear in the events read; memory is the
/// run's own id set (ranges) and one bit per event of the run.
package struct RunVerifier {
    let settings: LoadSettings
    let result: LoadRunResult

    package init(settings: LoadSettings, result: LoadRunResult) {
        self.settings = settings
        self.result = result
    }

    package func verify() throws(LoadRunError) -> LoadVerification {
        try verifyWithSamples().verification
    }

    /// `verify()`, with up to 10 eventIDs stored but never acknowledged (for
    /// `LoadVerification.sampleUnacknowledged`, once the report has it).
    package func verifyWithSamples() throws(LoadRunError) -> (
        verification: LoadVerification, sampleUnacknowledged: [String]
    ) {
        let client = try Self.client(settings)
        var sampleUnacknowledged: [String] = []
        var seen = StoredEventSet(installs: settings.installs)
        var verification = LoadVerification()
        let prefix = Array((result.runTag + "-").utf8)
        var cursor: String?
        var previous = Int64.min
        repeat {
            var path = "/_mock/events?workspace=\(settings.workspace)&limit=1000"
            if let cursor { path += "&cursor=\(cursor)" }
            let page = try get(path, client)
            let events = page["events"]?.arrayValue ?? []
            for event in events {
                guard let id = event["eventID"]?.stringValue,
                    let (fleetInstall, counter) = Self.parse(id, prefix: prefix)
                else { continue }
                // Another shard's install (the shards of a run share its tag): that shard verifies it.
                let install = fleetInstall - settings.firstInstall
                guard !isOtherShards(fleetInstall) else { continue }
                verification.stored += 1
                // An id the run never logged (a server inventing one) is stored and unacknowledged, and is
                // not given a bit: the set stays bounded by what the run logged.
                guard install >= 0, install < result.loggedPerInstall.count, counter < result.loggedPerInstall[install]
                else {
                    verification.unacknowledged += 1
                    if sampleUnacknowledged.count < 10 { sampleUnacknowledged.append(id) }
                    continue
                }
                if !seen.insert(install: install, counter: counter) {
                    verification.doubled += 1
                } else if !result.acknowledged.contains(install: install, counter: counter) {
                    verification.unacknowledged += 1
                    if sampleUnacknowledged.count < 10 { sampleUnacknowledged.append(id) }
                }
            }
            cursor = page["nextCursor"]?.stringValue
            if let next = cursor {
                previous = try Self.checkedCursor(next, after: previous, pageWasEmpty: events.isEmpty)
            }
        } while cursor != nil

        verification.acknowledged = result.acknowledged.count
        result.acknowledged.forEachEvent { install, counter in
            guard !seen.contains(install: install, counter: counter) else { return true }
            // A rejected event was acknowledged with its reason and is kept apart (`/_mock/events/rejected`).
            guard !result.rejectedEvents.contains(install: install, counter: counter) else { return true }
            let id = "\(result.runTag)-\(settings.firstInstall + install)-\(counter)"
            verification.lost += 1
            if verification.sampleLost.count < 10 { verification.sampleLost.append(id) }
            return true
        }

        try countViolations(into: &verification, prefix: prefix, client)
        return (verification, sampleUnacknowledged)
    }

    /// Pages through `GET /_mock/events/violations` (`limit` 1000, the opaque `cursor`; issue 18), so a run
    /// of millions of events is checked in one pass with one page in memory, and counts the violations that
    /// involve the run's events. A cursor that comes back unchanged stops the paging rather than loop.
    private func countViolations(into verification: inout LoadVerification, prefix: [UInt8], _ client: HTTPClient)
        throws(LoadRunError)
    {
        var cursor: String?
        repeat {
            var path = "/_mock/events/violations?workspace=\(settings.workspace)&limit=1000"
            if let cursor { path += "&cursor=\(cursor)" }
            let page = try get(path, client)
            for violation in page["violations"]?.arrayValue ?? [] {
                let ids = violation["eventIDs"]?.arrayValue?.compactMap(\.stringValue) ?? []
                guard
                    ids.contains(where: { id in
                        Self.parse(id, prefix: prefix).map { !isOtherShards($0.0) } ?? id.utf8.starts(with: prefix)
                    })
                else { continue }
                verification.violations += 1
                if verification.sampleViolations.count < 10 {
                    let rule = violation["rule"]?.stringValue ?? "?"
                    verification.sampleViolations.append("\(rule): \(violation["message"]?.stringValue ?? "")")
                }
            }
            let next = page["nextCursor"]?.stringValue
            guard next == nil || next != cursor else {
                throw LoadRunError("GET /_mock/events/violations gave the same cursor again")
            }
            guard next.map(Self.isViolationCursor) ?? true else {
                throw LoadRunError("GET /_mock/events/violations gave a cursor that is not base64url")
            }
            cursor = next
        } while cursor != nil
    }

    /// The violations cursor goes back into a request line: base64url only (docs/openapi.yaml).
    static func isViolationCursor(_ text: String) -> Bool {
        (1...4096).contains(text.utf8.count)
            && text.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                    || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
            }
    }

    /// An install of the fleet that is not this shard's: neither this process's nor beyond the fleet (an id
    /// the run never made, which is counted).
    private func isOtherShards(_ fleetInstall: Int) -> Bool {
        let own = settings.firstInstall..<(settings.firstInstall + settings.installs)
        return !own.contains(fleetInstall) && (0..<settings.fleetInstalls).contains(fleetInstall)
    }

    static func client(_ settings: LoadSettings) throws(LoadRunError) -> HTTPClient {
        do {
            return try HTTPClient(
                HTTPClient.Configuration(
                    host: settings.host, port: settings.port, maxConnections: 1, timeout: settings.timeout,
                    tls: settings.tls))
        } catch {
            throw LoadRunError("cannot start the client: \(error)")
        }
    }

    private func get(_ path: String, _ client: HTTPClient) throws(LoadRunError) -> JSONValue {
        var headers: [(String, String)] = []
        if let token = settings.adminToken { headers.append(("Authorization", "Bearer " + token)) }
        let completion = client.exchange(
            ClientRequest(
                tag: RequestTag(endpoint: nil), method: "GET", path: path, host: client.host, headers: headers,
                intendedStart: MonotonicClock.now()))
        guard case .response(let head, let body) = completion.outcome else {
            throw LoadRunError("GET \(path): \(client.failureDescription(of: completion))")
        }
        guard head.status == 200 else { throw LoadRunError("GET \(path) answered \(head.status)") }
        guard let value = try? JSONParser().parse(body)
        else { throw LoadRunError("GET \(path) did not answer JSON") }
        return value
    }

    /// The next page's cursor as a number, or why paging stops. It goes back into a request line, so a whole
    /// number (docs/openapi.yaml) and nothing else; oldest first it is the last row's sequence, so it grows,
    /// and a page that names a next one is full. A server that ignores `cursor` would otherwise be paged
    /// for ever, counting the same events again on each page.
    static func checkedCursor(_ text: String, after previous: Int64, pageWasEmpty: Bool) throws(LoadRunError)
        -> Int64
    {
        guard isCursor(text), let value = Int64(text) else {
            throw LoadRunError("GET /_mock/events gave a cursor that is not a number")
        }
        guard value > previous else {
            throw LoadRunError("GET /_mock/events gave a cursor that does not advance (\(text))")
        }
        guard !pageWasEmpty else {
            throw LoadRunError("GET /_mock/events gave an empty page with a next cursor")
        }
        return value
    }

    /// `[+-]?[0-9]{1,18}`.
    static func isCursor(_ text: String) -> Bool {
        let digits = text.utf8.drop { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }
        return text.utf8.count - digits.count <= 1 && (1...18).contains(digits.count)
            && digits.allSatisfy { (0x30...0x39).contains($0) }
    }

    /// `<runTag>-<install>-<counter>` → (install, counter), nil for another run's event.
    static func parse(_ id: String, prefix: [UInt8]) -> (Int, UInt32)? {
        let bytes = id.utf8
        guard bytes.starts(with: prefix) else { return nil }
        let rest = bytes.dropFirst(prefix.count)
        guard let dash = rest.firstIndex(of: UInt8(ascii: "-")),
            let install = HTTPResponseHead.decimal(rest[rest.startIndex..<dash]),
            let counter = HTTPResponseHead.decimal(rest[rest.index(after: dash)...]), counter <= Int(UInt32.max)
        else { return nil }
        return (install, UInt32(counter))
    }
}

/// One bit per event of the run that the server holds, per install.
struct StoredEventSet {
    private var bits: [[UInt64]]

    init(installs: Int) { bits = Array(repeating: [], count: max(0, installs)) }

    /// Marks the event; false when it was already marked (stored twice).
    mutating func insert(install: Int, counter: UInt32) -> Bool {
        guard bits.indices.contains(install) else { return true }
        let word = Int(counter / 64)
        if bits[install].count <= word { bits[install] += Array(repeating: 0, count: word + 1 - bits[install].count) }
        let mask = UInt64(1) << UInt64(counter % 64)
        defer { bits[install][word] |= mask }
        return bits[install][word] & mask == 0
    }

    func contains(install: Int, counter: UInt32) -> Bool {
        guard bits.indices.contains(install) else { return false }
        let word = Int(counter / 64)
        return word < bits[install].count && bits[install][word] & (UInt64(1) << UInt64(counter % 64)) != 0
    }
}
