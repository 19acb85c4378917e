import Foundation
import GronaMock
import GronaMockTestSupport
import Testing

@testable import GronaMockPostgres

/// The URL's password never shows, and a server that goes away is an error the engine answers 503 with,
/// then recovers from, never a crash or a hang.
@Suite("PostgreSQL storage: URL and availability")
struct PostgresAvailabilityTests {
    @Test(
        "the password is taken out of the URL shown, wherever it was written",
        arguments: [
            ("postgres://grona:s3cret@db.example:5433/mock", "postgres://grona@db.example:5433/mock"),
            ("postgresql://grona:s3cret@/mock?host=/tmp/x&port=5", "postgresql://grona@/mock?host=/tmp/x&port=5"),
            (
                "postgres://db.example/mock?password=s3cret&sslmode=require",
                "postgres://db.example/mock?sslmode=require"
            ),
            ("postgres://grona:s%33cret@db.example", "postgres://grona@db.example"),
            ("postgres://grona@db.example/mock", "postgres://grona@db.example/mock"),
            // libpq decodes parameter keywords too, and a client key's passphrase is as secret.
            ("postgres://db.example/mock?pass%77ord=s3cret&port=5", "postgres://db.example/mock?port=5"),
            ("postgres://db.example/mock?sslpassword=s3cret", "postgres://db.example/mock"),
            // An unencoded "@" in the password: libpq would take the rest for the host; nothing of it shows.
            ("postgres://grona:s3c@ret@db.example/mock", "postgres://***@db.example/mock"),
        ])
    func redacted(_ url: String, _ shown: String) throws {
        let parsed = try #require(PostgresURL(url))
        #expect(parsed.description == shown)
        #expect(GronaMockConfiguration.Storage.postgres(url: url).description == shown)
        #expect(parsed.secrets.contains("s3cret") || parsed.secrets.contains("s3c") || !url.contains("cret"))
        #expect(!shown.contains("cret") && !shown.contains("s3c"))
    }

    @Test("a URL with more than one \"@\" before its host is refused before libpq sees it, without its password")
    func ambiguousUserInformation() {
        let error = #expect(throws: StorageError.self) {
            try PostgresStorage(url: "postgresql://us:p@ss@127.0.0.1:1/db")
        }
        #expect(error?.message.contains("%40") == true)
        #expect(error?.message.contains("p@ss") == false)
        #expect(error?.message.contains("ss@") == false)
    }

    @Test("a URL of another scheme is not PostgreSQL's")
    func otherSchemes() {
        #expect(PostgresURL("./grona-mock.sqlite") == nil)
        #expect(PostgresURL("mysql://x@y/z") == nil)
        #expect(!PostgresURL.names(":memory:"))
    }

    @Test("a server that cannot be reached is 'unavailable', and its message has no password")
    func unreachable() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("grona-no-pg-\(UUID())").path
        let url = "postgresql://grona:pa55-word-9@/mock?host=\(directory)&port=5999&password=pa55-word-9"
        let error = #expect(throws: StorageError.self) { try PostgresStorage(url: url) }
        #expect(error?.kind == .unavailable)
        #expect(error?.message.contains("pa55-word-9") == false)
        #expect(error?.message.contains(directory) == true)
    }

    @Test(
        "a server that stops: calls fail as unavailable, and work again once it is back",
        .enabled(if: TestPostgres.isAvailable, TestPostgres.unavailableReason))
    func serverStopsAndReturns() throws {
        let cluster = try TestCluster()
        defer { cluster.stop() }
        let url = cluster.url.replacingOccurrences(of: "postgres@", with: "postgres:hunter2-pw@")
        let storage = try PostgresStorage(url: url)
        #expect(!storage.location.contains("hunter2-pw"))
        #expect(
            try storage.commit([batch(["before"])]) == [.batch(EventBatchResult(accepted: 1, duplicateIndexes: []))])

        try cluster.pause()
        let commit = #expect(throws: StorageError.self) { try storage.commit([batch(["during"])]) }
        #expect(commit?.kind == .unavailable)
        #expect(commit?.message.contains("hunter2-pw") == false)
        let read = #expect(throws: StorageError.self) { try storage.lastSequence() }
        #expect(read?.kind == .unavailable)
        #expect(storage.bytesUsed() == nil)

        try cluster.resume()
        let recovered = eventually(seconds: 30) { (try? storage.commit([batch(["after"])])) != nil }
        #expect(recovered)
        #expect(try storage.eventCount() == 2)
        #expect(try storage.count(matching: EventFilter()) == 2)
    }
}
