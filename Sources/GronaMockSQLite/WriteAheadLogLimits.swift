/// How long the write-ahead log may grow, in pages of 4 KiB: past `requestPages` the writer asks the checkpoint
/// thread to copy it back (`Checkpointer`), and past `commitPages` the COMMIT that reached it copies it itself.
///
/// The log can start over only once every frame in it has been copied, at a moment when the writer begins a
/// transaction: the checkpoint thread copies beside the writer, but under steady load the writer always has
/// newer frames, so the log starts over only at the COMMIT that copies the rest itself. That copy syncs the log
/// and then the database file (https://sqlite.org/wal.html#ckpt), 5 to 13 ms on this machine's disk, and every
/// batch that arrives meanwhile waits: it is the events endpoint's p99. Measured with `grona-mock load` at half
/// the fleet's peak (issue 14; `bench/README.md` has the rounds): the writer checkpointing at SQLite's 1,000
/// pages gave a median p99 of 11.2 ms; at 10,000 pages, with the checkpoint thread asked after every commit so
/// that the writer's own copy is only the remainder, 6.5 ms. The log file then peaks near 40 MB. It is not rare
/// even so: varied events insert all over the indexes, a commit of some 60 events rewrites a couple of hundred
/// pages, and at 34,000 events/s the writer's own checkpoint still comes about every 150 ms (`perf trace`), only
/// with little left to copy. Asking the thread once per 300 new pages instead of after every commit halved its
/// syncs and did not lower the p99.
struct WriteAheadLogLimits: Sendable {
    /// The length past which the checkpoint thread is asked to copy the log back. A short log is a fast one:
    /// every page an insert reads is looked up in the log's index first. 300 pages measured better than 150
    /// (more syncs) and 700 (a longer log to search).
    var requestPages = 300
    /// The length past which a COMMIT copies the rest of the log itself, so that the log starts over: the bound
    /// on its length, whatever the checkpoint thread manages.
    var commitPages: Int32 = 10_000

    static let standard = WriteAheadLogLimits()
}
