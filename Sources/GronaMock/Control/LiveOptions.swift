extension GronaMockConfiguration {
    /// The live stream of events behind the dashboard, `GET /_mock/events/live` (docs/dashboard.md).
    public struct Live: Sendable {
        /// Events kept in memory for viewers that fall behind or reconnect; older ones are dropped.
        public var feedCapacity: Int
        /// The most bytes of event JSON the feed keeps, whatever the count: 10,000 events of 32 KiB would
        /// otherwise hold 320 MB with no viewer at all. Once a viewer has read a batch, its text is kept too,
        /// so the feed holds at most about twice this (and one batch more).
        public var feedBytes: Int
        /// Viewers at once; one more is answered 503 `too_many_viewers`.
        public var maxViewers: Int
        /// A comment line is sent to a viewer after this long without anything else, so that it (and any proxy
        /// between) can tell a quiet stream from a dead one.
        public var heartbeat: Duration
        /// Events sent before the live ones to a viewer that names no cursor.
        public var backlog: Int

        public init(
            feedCapacity: Int = 10_000, maxViewers: Int = 64, heartbeat: Duration = .seconds(15), backlog: Int = 100,
            feedBytes: Int = 16 * 1024 * 1024
        ) {
            self.feedCapacity = max(1, feedCapacity)
            self.feedBytes = max(1, feedBytes)
            self.maxViewers = max(1, maxViewers)
            self.heartbeat = max(.milliseconds(1), heartbeat)
            self.backlog = max(0, backlog)
        }
    }
}
