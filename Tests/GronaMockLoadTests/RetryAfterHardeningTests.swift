import Foundation
import Testing

@testable import GronaMockLoad

/// `Retry-After` is delay-seconds or an HTTP-date (RFC 9110 §10.2.3); docs/load-testing.md says it is honoured
/// when longer than the backoff. A date was ignored, so a batch refused until a time was sent again at once.
@Suite struct RetryAfterHardeningTests {
    @Test(arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", Int64(784_111_777)), ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
        ("Fri, 31 Dec 9999 23:59:59 GMT", 253_402_300_799), ("Tue, 29 Feb 2028 12:00:00 GMT", 1_835_438_400),
    ])
    func anIMFFixdateIsRead(text: String, seconds: Int64) throws {
        let parser = try HTTPResponseParserTests.parse(
            "HTTP/1.1 503 X\r\nRetry-After: \(text)\r\nContent-Length: 0\r\n\r\n", splits: [])
        #expect(parser.head.retryAfterDate == seconds)
        #expect(parser.head.retryAfterSeconds == nil)
    }

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 UTC", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun, 32 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:49:37 GMT", "Sun, 06 Xyz 1994 08:49:37 GMT", "-5", "10^12", "",
    ])
    func garbageIsIgnored(text: String) throws {
        let parser = try HTTPResponseParserTests.parse(
            "HTTP/1.1 503 X\r\nRetry-After: \(text)\r\nContent-Length: 0\r\n\r\n", splits: [])
        #expect(parser.isComplete)
        #expect(parser.head.retryAfterDate == nil)
        #expect(parser.head.retryAfterSeconds == nil)
    }

    /// A service refuses each batch once with a `Retry-After` date two seconds ahead: the retry does not come
    /// before that second.
    @Test func aBatchIsNotRetriedBeforeTheDateItWasGiven() throws {
        final class Log: @unchecked Sendable {
            let lock = NSLock()
            var refusedUntil: [String: Int64] = [:]
            var early = 0
            var retried = 0
        }
        let log = Log()
        let service = try HostileService { request in
            guard request.path == "/v1/mobile/events" else { return HostileService.response(404, "{}") }
            let ids = HostileService.eventIDs(request.body)
            let now = WallClock.milliseconds() / 1000
            return log.lock.withLock {
                let first = ids.first ?? ""
                if let until = log.refusedUntil[first] {
                    log.retried += 1
                    if now < until { log.early += 1 }
                    return HostileService.response(200, "{\"accepted\":\(ids.count),\"duplicates\":0,\"rejected\":[]}")
                }
                let until = now + 2
                log.refusedUntil[first] = until
                return HostileService.response(503, "{}", headers: "Retry-After: \(Self.imfFixdate(until))\r\n")
            }
        }
        defer { service.stop() }
        var settings = service.settings(tag: "ra")
        settings.duration = .milliseconds(300)
        let result = try FleetRunner(settings: settings).run()
        #expect(log.lock.withLock { log.retried } > 0)
        #expect(log.lock.withLock { log.early } == 0)
        #expect(result.statistics.eventsAbandoned == 0)
    }

    static func imfFixdate(_ seconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
