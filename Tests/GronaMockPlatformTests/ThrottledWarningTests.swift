import Testing

@testable import GronaMockPlatform

/// The out-of-descriptors warnings: one line at once, then at most one per interval, counting the rest.
@Suite("Throttled warnings")
struct ThrottledWarningTests {
    @Test("a burst logs its first occurrence, then one line per interval saying how many were held back")
    func burst() {
        let lines = Mutex<[String]>([])
        let logger = Logger(format: .text, minimumLevel: .info) { line in lines.withLock { $0.append(line) } }
        var warning = ThrottledWarning("out of file descriptors; refused a connection", everyNanoseconds: 1_000)
        for time in stride(from: UInt64(0), to: 2_500, by: 100) { warning.occurred(at: time, logger: logger) }
        let logged = lines.withLock { $0 }
        #expect(logged.count == 3, "\(logged)")
        #expect(logged.allSatisfy { $0.contains("out of file descriptors; refused a connection") })
        #expect(!logged[0].contains("heldBack"))
        #expect(logged[1].contains("heldBack=9"), "\(logged[1])")
        #expect(logged[2].contains("heldBack=9"), "\(logged[2])")
    }

    @Test("what a burst held back is logged once the interval has passed, not kept for the next burst")
    func flushAfterBurst() {
        let lines = Mutex<[String]>([])
        let logger = Logger(format: .text, minimumLevel: .info) { line in lines.withLock { $0.append(line) } }
        var warning = ThrottledWarning("out of file descriptors; refused a connection", everyNanoseconds: 1_000)
        for time in [0, 10, 20, 30] as [UInt64] { warning.occurred(at: time, logger: logger) }
        warning.flush(at: 500, logger: logger)
        #expect(lines.withLock { $0.count } == 1)
        warning.flush(at: 1_000, logger: logger)
        warning.flush(at: 5_000, logger: logger)
        let logged = lines.withLock { $0 }
        #expect(logged.count == 2, "\(logged)")
        #expect(logged.last?.contains("heldBack=3") == true, "\(logged)")
        // Nothing held back since: the next occurrence, much later, is a line of its own, with no count.
        warning.occurred(at: 9_000_000, logger: logger)
        #expect(lines.withLock { $0.last?.contains("heldBack") } == false)
    }
}
