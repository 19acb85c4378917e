import GronaMockHTTP

/// Run-time changes across instances on one database (issue 15): each change this instance applies is
/// published in the same call, holding `loading`, so that it publishes its changes in the order it applied
/// them; the changes of other instances come back through `applyShared`, which applies them the way the
/// local calls do, without publishing them again.
extension WorkspaceRegistry {
    /// Publishes a served change (a put, a kill or revive, a rotation) and hands the entry back.
    func published(_ entry: Entry) throws(ChangeError) -> Entry {
        try publish(.serve(workspace: entry.workspace.key, document: entry.source, origin: entry.origin, expiry: nil))
        return entry
    }

    /// Tells the other instances. When that fails the change is already served here: the caller gets a 503
    /// (asking again publishes it again, as the same content keeps its revision), and the log says so.
    func publish(_ change: RuntimeChange) throws(ChangeError) {
        do {
            try shared.publish(change)
        } catch {
            logger.error(
                "a run-time change is served by this instance but could not be shared",
                [("workspace", change.workspace ?? "*"), ("change", change.kind.rawValue), ("error", "\(error)")])
            throw .unavailable(error)
        }
    }

    /// Applies a change another instance made. `now` and `wall` (the monotonic and real clocks) turn a
    /// clone's shared deadline into this instance's own. A change that cannot be applied here (a document
    /// naming a key only its instance generated) is logged and skipped; the others still apply.
    package func applyShared(
        _ change: RuntimeChange, now: UInt64 = MonotonicClock.now(), wall: Int64 = ServerClock.wallMilliseconds()
    ) {
        loading.withLock { _ in
            switch change {
            case .serve(let key, let document, let origin, let expiry):
                do throws(ChangeError) {
                    // The instance that made the change validated it; it is served as that one serves it.
                    _ = try replace(key, document: document, allowInvalid: true, origin: origin)
                } catch {
                    logger.error(
                        "a run-time change from another instance cannot be served here",
                        [("workspace", key), ("error", "\(error.httpError.message)")])
                    return
                }
                if let expiry {
                    let left = max(0, expiry.expiresAt.clampedAdding(-wall))
                    let deadline = MonotonicClock.deadline(from: now, after: .milliseconds(left))
                    state.withLock { $0.expiries[key] = CloneExpiry(ttlSeconds: expiry.ttlSeconds, deadline: deadline) }
                }
            case .removeClone(let key):
                dropClone(key)
            case .reset(let key?):
                _ = resetOne(key)
            case .reset(nil):
                resetAll()
            }
        }
    }
}
