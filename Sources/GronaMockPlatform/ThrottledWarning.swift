/// A warning that can come once per event, in bursts: logged at once the first time, then at most once per
/// `interval`, each line saying how many were held back since the last one.
///
/// Running out of file descriptors refuses every client that arrives meanwhile, and a line per refused client
/// would bury the rest of the log (and cost the loop a write per client) just when an operator reads it. Confined
/// to one thread, like the event loop that keeps it.
package struct ThrottledWarning {
    package let message: String
    package let interval: UInt64
    private var lastLogged: UInt64?
    private var heldBack = 0

    package init(_ message: String, everyNanoseconds interval: UInt64) {
        self.message = message
        self.interval = interval
    }

    /// Records one occurrence at the monotonic time `now`, and logs it unless a line went out within `interval`.
    package mutating func occurred(at now: UInt64, logger: Logger) {
        if let lastLogged, now &- lastLogged < interval {
            heldBack += 1
            return
        }
        log(at: now, logger: logger)
    }

    /// Logs what was held back once `interval` has passed since the last line, so that the end of a burst is
    /// counted when it ends, not with the next burst. Called on the event loop's periodic check.
    package mutating func flush(at now: UInt64, logger: Logger) {
        guard heldBack > 0, let lastLogged, now &- lastLogged >= interval else { return }
        log(at: now, logger: logger)
    }

    private mutating func log(at now: UInt64, logger: Logger) {
        logger.warning(message, heldBack > 0 ? [("heldBack", heldBack)] : [])
        lastLogged = now
        heldBack = 0
    }
}
