import GronaMockPlatform

/// Run-time changes across instances on one database (issue 15): each change this instance applies is
/// published in the same call, inside the change lane, so that it publishes its changes in the order it
/// applied them; the changes of other instances come back through `applyShared`, which applies them the way
/// the local calls do, without publishing them again.
extension WorkspaceRegistry {
    /// Publishes a served change (a put, a kill or revive, a rotation).
    func published(_ entry: Entry) throws(ChangeError) {
        try publish(.serve(workspace: entry.workspace.key, document: entry.source, origin: entry.origin, expiry: nil))
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
        lane.withLock { lane in
            switch change {
            case .serve(let key, let document, let origin, let expiry):
                do throws(ChangeError) {
                    // The instance that made the change validated it; it is served as that one serves it.
                    _ = try replace(key, document: document, allowInvalid: true, origin: origin, in: &lane)
                } catch {
                    logger.error(
                        "a run-time change from another instance cannot be served here",
                        [("workspace", key), ("error", "\(error.httpError.message)")])
                    return
                }
                if let expiry {
                    let left = max(0, expiry.expiresAt.clampedAdding(-wall))
                    let deadline = MonotonicClock.deadline(from: now, after: .milliseconds(left))
                    expiries.set(CloneExpiry(ttlSeconds: expiry.ttlSeconds, deadline: deadline), for: key)
                }
                announce(.shared(change.kind), key: key, in: &lane)
            case .removeClone(let key):
                dropClone(key, in: &lane)
                announce(.shared(change.kind), key: key, in: &lane)
            case .reset(let key?):
                _ = resetOne(key, in: &lane)
            case .reset(nil):
                resetAll(in: &lane)
            }
        }
    }
}
