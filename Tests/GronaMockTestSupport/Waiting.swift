import Foundation

/// One request on a fresh connection.
package func fetch(_ port: Int, _ request: String) throws -> RawClient.Response {
    let client = try RawClient(port: port)
    try client.send(request)
    return try client.readResponse(forHead: request.hasPrefix("HEAD"))
}

/// Polls `condition` every 20 ms until it holds or `seconds` pass (no fixed sleeps in tests).
///
/// The time is counted as `PausedTime` counts it, so a pause of the whole machine does not use up the wait.
package func eventually(seconds: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    var budget = PausedTime(seconds: seconds)
    while !budget.isSpent {
        if try condition() { return true }
        budget.step { usleep(20_000) }
    }
    return try condition()
}

/// A test's patience, counted in the steps it waits, each counted at most twice its length.
///
/// A virtual machine can be descheduled by its host for seconds at a time (CI once lost ten): every thread
/// stops, the clock runs on, and a deadline taken from the clock passes before the server under test has
/// run again. Counting each step at most twice its length lets such a pause cost one step, while a
/// condition that never holds still fails after about `seconds` of waiting.
package struct PausedTime {
    private var remaining: Double

    package init(seconds: Double) { remaining = seconds }

    package var isSpent: Bool { remaining <= 0 }

    /// Runs one step of waiting (a sleep, or a wait of `length` seconds at most) and counts it.
    package mutating func step(length: Double = 0.02, _ wait: () -> Void) {
        let start = DispatchTime.now().uptimeNanoseconds
        wait()
        let took = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        remaining -= min(took, 2 * length)
    }
}

extension DispatchSemaphore {
    /// Waits for a signal for about `seconds`, counted as `PausedTime` counts: true when it came.
    package func wait(countingPauses seconds: Double) -> Bool {
        var budget = PausedTime(seconds: seconds)
        while !budget.isSpent {
            var signalled = false
            budget.step(length: 0.05) { signalled = wait(timeout: .now() + 0.05) == .success }
            if signalled { return true }
        }
        return false
    }
}
