import Testing

@testable import GronaMockHTTP

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
}
