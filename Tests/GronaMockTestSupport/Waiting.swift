import Foundation

/// One request on a fresh connection.
package func fetch(_ port: Int, _ request: String) throws -> RawClient.Response {
    let client = try RawClient(port: port)
    try client.send(request)
    return try client.readResponse(forHead: request.hasPrefix("HEAD"))
}

/// Polls `condition` every 20 ms until it holds or `seconds` pass (no fixed sleeps in tests).
package func eventually(seconds: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(20_000)
    }
    return try condition()
}

/// The same from async code: sleeps the task, not the thread, between polls.
package func eventually(seconds: Double = 10, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try condition()
}
