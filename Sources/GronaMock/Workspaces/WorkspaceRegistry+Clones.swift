import GronaMockPlatform

/// Clones (contract §8): a workspace copied under a new key for an isolated test run, with its own secret key
/// and events, removed by a DELETE, a reset or its time to live. Making, resetting and removing one costs the
/// same whatever the number of clones: every step is a hash lookup, and expiry looks at no clone until one
/// is due (issue 28; `bench/clones.sh`).
extension WorkspaceRegistry {
    /// Copies workspace `key` as `newKey`: the same content and keys, its own secret key (a secret picks the
    /// workspace on the grants endpoint, so it cannot be shared) and its own events. With `ttlSeconds`, the
    /// clone is removed by `expireClones` once that many seconds of real time have passed after `now`.
    /// Returns the clone and its secret key, which is shown once.
    package func clone(
        _ key: String, as newKey: String, secretKey: String?, ttlSeconds: Int? = nil,
        now: UInt64 = MonotonicClock.now()
    ) throws(ChangeError) -> (Entry, String) {
        try Self.check(key, .workspaceKey, given: "the path")
        try Self.check(newKey, .workspaceKey, given: "workspaceKey")
        if let secretKey { try Self.check(secretKey, .secretKey, given: "secretKey") }
        let secret: String
        if let secretKey { secret = secretKey } else { secret = try Self.drawSecret(for: newKey) }
        return try lane.withLock { lane throws(ChangeError) -> (Entry, String) in
            let current = try existing(key)
            guard entry(for: newKey) == nil else { throw .alreadyExists(newKey) }
            guard served.cloneCount < maxClones else { throw .tooManyClones(limit: maxClones) }
            guard var root = current.source.objectValue else { throw .failed("the workspace has no source document") }
            root.set("workspaceKey", .string(newKey))
            root.set("secretKeys", .array([.string(secret)]))
            let entry = try replace(
                newKey, document: .object(root), allowInvalid: !current.problems.isEmpty, origin: .clone, in: &lane)
            // `deadline(from:after:)` saturates, so no time to live can overflow the deadline.
            let expiry = ttlSeconds.map {
                CloneExpiry(ttlSeconds: $0, deadline: MonotonicClock.deadline(from: now, after: .seconds($0)))
            }
            expiries.set(expiry, for: newKey)
            // Other instances get the wall-clock deadline, which they read alike.
            let shared = ttlSeconds.map {
                SharedExpiry(ttlSeconds: $0, expiresAt: ServerClock.wallMilliseconds().clampedAdding(Int64($0) * 1000))
            }
            do throws(ChangeError) {
                try publish(.serve(workspace: newKey, document: entry.source, origin: .clone, expiry: shared))
            } catch {
                // A clone the other instances could not hear of is not kept here either: asking again (after
                // the 503) must make it, not find it already made.
                dropClone(newKey, in: &lane)
                throw error
            }
            announce(.cloned(from: key), key: newKey, in: &lane)
            return (entry, secret)
        }
    }

    /// A fresh secret key for a clone: 96 random bits. A failed draw is an error, never a weaker secret.
    private static func drawSecret(for key: String) throws(ChangeError) -> String {
        do {
            return "sk_test_\(key)_" + Base64.urlEncode(try LibCrypto.randomBytes(12))
        } catch {
            throw .failed("could not draw a random secret key for the clone: \(error)")
        }
    }

    /// Stops serving a clone (its events are the caller's to delete).
    package func removeClone(_ key: String) throws(ChangeError) {
        try Self.check(key, .workspaceKey, given: "the path")
        try lane.withLock { lane throws(ChangeError) in
            let current = try existing(key)
            guard current.origin == .clone else { throw .notAClone(key) }
            // Told first: a removal the other instances could not hear of is not made here either, so that
            // asking again (after a 503) still finds the clone to remove.
            try publish(.removeClone(workspace: key))
            dropClone(key, in: &lane)
            announce(.removed, key: key, in: &lane)
        }
    }

    /// Clone `key` no longer served.
    func dropClone(_ key: String, in lane: inout ChangeLane) {
        served.remove(key)
        expiries.set(nil, for: key)
        // A file of the same name, hidden while the clone was served, is loaded at the next tick.
        lane.files.forget(key)
    }

    /// Removes the clones whose time to live has passed at `now` (a `MonotonicClock` reading; tests pass their
    /// own). The listeners hear each as `.expired`, so that its events and the rest of its run go too. The
    /// file watcher calls it on every tick. Returns the keys removed.
    @discardableResult
    package func expireClones(now: UInt64 = MonotonicClock.now()) -> [String] {
        lane.withLock { lane in
            let due = expiries.takeDue(now: now)
            for (key, ttl) in due {
                // Deleting or resetting a clone drops its expiry, so this only guards the invariant.
                guard entry(for: key)?.origin == .clone else { continue }
                dropClone(key, in: &lane)
                logger.info("clone expired; no longer served", [("workspace", key), ("ttlSeconds", ttl)])
                announce(.expired, key: key, in: &lane)
            }
            return due.map(\.key)
        }
    }
}
