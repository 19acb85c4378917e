import Dispatch
import Foundation
import Testing

@testable import GronaMockSQLite

/// Reads run on a pool of connections: a long read (a violations scan) does not hold up another.
@Suite("Database readers")
struct DatabaseReadersTests {
    @Test("a read proceeds while another read is still running")
    func concurrentReads() throws {
        let file = try TemporaryDatabase()
        let database = try Database(path: file.path, readers: 2)
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? database.withReader { connection throws(SQLiteError) in
                inside.signal()
                release.wait()
                return try connection.scalarText("SELECT count(*) FROM events")
            }
            finished.signal()
        }
        #expect(inside.wait(timeout: .now() + 10) == .success)
        // The first reader is held; this one must not wait for it (waited for on another thread, so that a
        // regression fails here instead of hanging the suite).
        let second = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? database.withReader { connection throws(SQLiteError) in try connection.scalarText("SELECT 1") }
            second.signal()
        }
        #expect(second.wait(timeout: .now() + 10) == .success, "the second read waited for the first")
        release.signal()
        #expect(finished.wait(timeout: .now() + 10) == .success)
    }

    @Test("after interruptReads every read fails at once with a clear error")
    func readsStopAtShutdown() throws {
        let file = try TemporaryDatabase()
        let database = try Database(path: file.path)
        database.interruptReads()
        #expect(throws: SQLiteError.self) {
            try database.withReader { connection throws(SQLiteError) in try connection.scalarText("SELECT 1") }
        }
    }
}
