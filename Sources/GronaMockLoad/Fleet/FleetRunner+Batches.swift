import GronaMock
import GronaMockJSON
import GronaMockPlatform

/// Batching as the SDK does it (contract §7): a batch leaves when it holds `--batch-size` events or its oldest
/// is `--batch-age` old, one at a time per install; a failed one is retried with the same body (so the same
/// eventIDs) after a backoff, and given up after `--max-retries`.
extension FleetRunner {
    /// Sends the next batch if one is due; otherwise makes sure the age timer will look again.
    func sendIfDue(_ index: Int, now: UInt64) {
        // Field by field: a copy of the whole install would retain each of its buffers, per visit.
        let pendingCount = installs[index].pendingCount
        guard installs[index].batch == nil, installs[index].offlineUntil <= now, pendingCount > 0 else { return }
        let ageDue = MonotonicClock.deadline(from: installs[index].oldestPendingAt, after: settings.batchAge)
        if pendingCount >= settings.batchSize {
            takeBatch(index, due: installs[index].fullSince ?? now, now: now)
        } else if installs[index].flushing {
            takeBatch(index, due: now, now: now)
        } else if ageDue <= now {
            takeBatch(index, due: ageDue, now: now)
        } else if installs[index].ageTimerAt != ageDue {
            installs[index].ageTimerAt = ageDue
            timers.schedule(.batchAge(index), at: ageDue)
        }
    }

    /// Moves the oldest pending events (at most a batch) into a batch with its envelope, gzipped, and sends it.
    private func takeBatch(_ index: Int, due: UInt64, now: UInt64) {
        let count = batchCount(index)
        let body: [UInt8] = withEnvelope(index, count: count) { bytes in
            settings.gzip ? Gzip.compress(bytes, level: 1) : bytes
        }
        installs[index].batch = OutgoingBatch(
            firstCounter: installs[index].pendingFirstCounter, count: count, body: body,
            dueAt: max(due, installs[index].onlineSince))
        batchesOutstanding += 1
        pendingEventsTotal -= count
        consumePending(index, count: count, now: now)
        submitBatch(index)
    }

    /// Contract §7: at most 512 KiB of JSON per request (after gunzip), less room for the envelope.
    static let maximumBatchEventBytes = 512 * 1024 - 1024

    /// The oldest pending events that fit in one batch: at most `--batch-size`, and as many as stay within
    /// the contract's bytes (at least one, which the server may refuse on its own). Events made large by the
    /// configuration (long ids, many product lines) would otherwise fill a batch the server refuses whole.
    private func batchCount(_ index: Int) -> Int {
        let install = installs[index]
        var low = 1
        var high = min(settings.batchSize, install.pendingCount)
        // The largest count whose events (`,{…}` each, the first comma dropped) fit: pendingEnds grows.
        while low < high {
            let middle = (low + high + 1) / 2
            let bytes = install.pendingEnds[install.pendingHead + middle - 1] - install.pendingStart - 1
            if bytes <= Self.maximumBatchEventBytes { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// Builds `{"workspaceKey":…,"installID":…,"sdk":…,"app":…,"sentAt":…,"events":[…]}` in the reused buffer.
    private func withEnvelope<T>(_ index: Int, count: Int, _ body: ([UInt8]) -> T) -> T {
        let install = installs[index]
        let end = install.pendingEnds[install.pendingHead + count - 1]
        envelope.removeAll(keepingCapacity: true)
        envelope += "{\"workspaceKey\":".utf8
        envelope += JSONText.quoted(settings.workspace).utf8
        envelope += ",\"installID\":".utf8
        envelope += JSONText.quoted(installName(index)).dropLast().utf8
        envelope += "\",\"sdk\":{\"platform\":\"ios\",\"version\":\"1.4.0\"},".utf8
        envelope += "\"app\":{\"id\":\"com.grona.load\",\"version\":\"1.0.0\"},\"sentAt\":".utf8
        EventEncoder.appendDecimal(WallClock.milliseconds(), to: &envelope)
        envelope += ",\"events\":[".utf8
        // Each event starts with a comma; the first one's is dropped.
        envelope += install.pending[(install.pendingStart + 1)..<end]
        envelope += "]}".utf8
        return body(envelope)
    }

    /// Forgets the first `count` pending events, compacting the buffer now and then.
    private func consumePending(_ index: Int, count: Int, now: UInt64) {
        installs[index].pendingStart = installs[index].pendingEnds[installs[index].pendingHead + count - 1]
        installs[index].pendingHead += count
        installs[index].pendingFirstCounter &+= UInt32(count)
        if installs[index].pendingHead == installs[index].pendingEnds.count {
            installs[index].pending.removeAll(keepingCapacity: true)
            installs[index].pendingEnds.removeAll(keepingCapacity: true)
            installs[index].pendingHead = 0
            installs[index].pendingStart = 0
            installs[index].fullSince = nil
            return
        }
        // Events logged before now that are still pending: their batch is due by age from now at the latest.
        installs[index].oldestPendingAt = now
        installs[index].fullSince = installs[index].pendingCount >= settings.batchSize ? now : nil
        if installs[index].pendingStart > 256 * 1024 {
            let shift = installs[index].pendingStart
            installs[index].pending.removeFirst(shift)
            installs[index].pendingEnds.removeFirst(installs[index].pendingHead)
            for position in installs[index].pendingEnds.indices { installs[index].pendingEnds[position] -= shift }
            installs[index].pendingHead = 0
            installs[index].pendingStart = 0
        }
    }

    /// Sends (or resends) the install's batch.
    func submitBatch(_ index: Int) {
        guard var batch = installs[index].batch else { return }
        var headers = [("Content-Type", "application/json")]
        if settings.gzip { headers.append(("Content-Encoding", "gzip")) }
        client.submitNow(
            ClientRequest(
                tag: RequestTag(endpoint: .events, owner: index, isRetry: batch.attempts > 0), method: "POST",
                path: "/v1/mobile/events", host: client.host, headers: headers, body: batch.body,
                intendedStart: batch.dueAt))
        batch.attempts += 1
        batch.inFlight = true
        installs[index].batch = batch
    }

    func batchAnswered(_ index: Int, _ completion: ClientCompletion) {
        guard var batch = installs[index].batch, batch.inFlight else { return }
        batch.inFlight = false
        installs[index].batch = batch
        switch completion.outcome {
        case .response(let head, let body) where head.status == 200:
            acknowledge(index, batch, body: body)
            finishBatch(index, now: completion.finishedAt)
        case .response(let head, _) where Self.isRetryable(head.status):
            retryOrAbandon(index, retryAfter: Self.retryAfterSeconds(head), now: completion.finishedAt)
        case .response:
            // A 4xx other than 408 and 429 will not get better by sending the same batch again.
            statistics.eventsAbandoned += batch.count
            finishBatch(index, now: completion.finishedAt)
        case .failure:
            retryOrAbandon(index, retryAfter: nil, now: completion.finishedAt)
        }
    }

    /// `Retry-After` as seconds from now: delay-seconds as given, an HTTP-date against the wall clock (a date
    /// in the past is no wait; one far ahead is capped by `RetryPolicy`).
    static func retryAfterSeconds(_ head: HTTPResponseHead) -> Int? {
        if let seconds = head.retryAfterSeconds { return seconds }
        guard let date = head.retryAfterDate else { return nil }
        let (wait, overflow) = date.subtractingReportingOverflow(WallClock.milliseconds() / 1000)
        return overflow ? nil : Int(clamping: max(0, wait))
    }

    static func isRetryable(_ status: Int) -> Bool { status == 408 || status == 429 || status >= 500 }

    private func retryOrAbandon(_ index: Int, retryAfter: Int?, now: UInt64) {
        guard var batch = installs[index].batch else { return }
        let retriesDone = batch.attempts - 1
        guard retriesDone < retryPolicy.maxRetries else {
            statistics.eventsAbandoned += batch.count
            finishBatch(index, now: now)
            return
        }
        let delay = retryPolicy.delay(beforeRetry: retriesDone + 1, retryAfterSeconds: retryAfter, using: &jitter)
        batch.dueAt = now &+ delay
        installs[index].batch = batch
        timers.schedule(.retry(index), at: batch.dueAt)
    }

    private func finishBatch(_ index: Int, now: UInt64) {
        installs[index].batch = nil
        batchesOutstanding -= 1
        sendIfDue(index, now: now)
    }

    /// Counts a 200: the answer's `accepted`, `duplicates` and `rejected` when it is the contract's
    /// acknowledgement (§7: a JSON object whose integers and array add up to the batch). Any other 200 (a
    /// sink's fixed `ok`, counts that do not add up) acknowledges the batch without confirming it: its events
    /// count as unconfirmed, never as accepted, so that a service that does not keep the contract cannot pass
    /// as one that stored everything.
    private func acknowledge(_ index: Int, _ batch: OutgoingBatch, body: [UInt8]) {
        statistics.eventsAcknowledged += batch.count
        acknowledged.record(install: index, first: batch.firstCounter, count: batch.count)
        let answer = try? JSONParser().parse(body)
        let range = Int64(0)...Int64(batch.count)
        guard answer?.objectValue != nil,
            let accepted = answer?["accepted"]?.int64Value.flatMap({ range.contains($0) ? Int($0) : nil }),
            let duplicates = answer?["duplicates"]?.int64Value.flatMap({ range.contains($0) ? Int($0) : nil }),
            let rejected = answer?["rejected"]?.arrayValue,
            accepted + duplicates + rejected.count == batch.count
        else {
            statistics.eventsUnconfirmed += batch.count
            return
        }
        statistics.eventsAccepted += accepted
        statistics.eventsDuplicate += duplicates
        statistics.eventsRejected += rejected.count
        // Only the batch's own events: an id it did not hold (of any length) is not the run's to keep.
        let prefix = encoder.runTag + [UInt8(ascii: "-")]
        for entry in rejected {
            guard let id = entry["eventID"]?.stringValue,
                let (install, counter) = RunVerifier.parse(id, prefix: prefix),
                install == encoder.firstInstall + index, counter &- batch.firstCounter < UInt32(clamping: batch.count)
            else { continue }
            rejectedEvents.insert(install: index, counter: counter)
        }
    }
}
