import GronaMockPlatform

/// One viewer's place in the feed: the state of its stream. When the stream is cancelled (the client left)
/// or ends, the stream drops it, and its slot is freed.
package final class LiveViewer: Sendable {
    /// Entries (batches) turned into one piece at most.
    static let entriesPerPiece = 32
    /// A piece ends after the entry that takes it past this many bytes: 32 batches of 512 KiB would make a
    /// 16 MiB piece, held whole by the connection of a viewer that does not read.
    static let pieceBytes = 256 * 1024

    let id: Int
    let progress: LiveViewers.Progress
    let filter: LiveFilter
    let viewers: LiveViewers

    init(id: Int, progress: LiveViewers.Progress, filter: LiveFilter, viewers: LiveViewers) {
        self.id = id
        self.progress = progress
        self.filter = filter
        self.viewers = viewers
    }

    deinit { viewers.leave(id) }

    /// The events past the cursor that pass the filter, a gap first if some were dropped before this viewer
    /// read them, or a heartbeat when nothing was sent for a while; nil ends the stream (the server stops).
    /// Empty when there was news but none for this viewer: the connection asks again and it waits.
    func next() -> [UInt8]? {
        if viewers.isStopping { return nil }
        var cursor = progress.cursor.load(ordering: .acquiring)
        var output: [UInt8] = []
        let (oldest, entries) = viewers.feed.entries(after: cursor, limit: Self.entriesPerPiece)
        if cursor + 1 < oldest {
            LiveEventText.gap(missed: oldest - 1 - cursor, lastMissedID: oldest - 1, to: &output)
            cursor = oldest - 1
        }
        for entry in entries {
            cursor = LiveEventText.append(entry, after: cursor, filter: filter, to: &output)
            if output.count >= Self.pieceBytes { break }
        }
        let now = MonotonicClock.now()
        let lastSent = progress.lastSent.load(ordering: .acquiring)
        let probed = progress.probe.exchange(false, ordering: .acquiringAndReleasing)
        if output.isEmpty
            && (probed || lastSent == 0
                || now >= MonotonicClock.deadline(from: lastSent, after: viewers.options.heartbeat))
        {
            output = LiveEventText.heartbeat
        }
        progress.cursor.store(cursor, ordering: .releasing)
        if !output.isEmpty { progress.lastSent.store(max(1, now), ordering: .releasing) }
        return output
    }
}
