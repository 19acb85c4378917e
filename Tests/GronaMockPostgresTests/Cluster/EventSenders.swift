import Foundation
import GronaMockPlatform
import GronaMockTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Threads that post event batches to instances over keep-alive connections until stopped, as SDKs under
/// load do, and record which events were acknowledged (a 200), which were refused as `storage_unavailable`
/// (503: asked again with new ids, as nothing of them is stored), and which had no answer.
final class EventSenders: Sendable {
    private struct State {
        var acknowledged: Set<String> = []
        var unavailable = 0
        var finished = 0
    }

    private let state = Mutex(State())
    private let stopping = Atomic<Bool>(false)
    private let count: Int

    /// Starts `perPort` senders for each of `ports`; each sends at most `rounds` batches of 20.
    init(ports: [Int], perPort: Int = 2, rounds: Int = 20_000) {
        count = ports.count * perPort
        for (index, port) in ports.flatMap({ Array(repeating: $0, count: perPort) }).enumerated() {
            Thread { [self] in
                send(sender: "p\(port)-s\(index)", port: port, rounds: rounds)
                state.withLock { $0.finished += 1 }
            }.start()
        }
    }

    var acknowledged: Set<String> { state.withLock { $0.acknowledged } }
    var acknowledgedCount: Int { state.withLock { $0.acknowledged.count } }
    var unavailableCount: Int { state.withLock { $0.unavailable } }

    /// Stops every sender and waits (up to 30 s) until each has had its last answer.
    func stop() -> Bool {
        stopping.store(true, ordering: .releasing)
        return eventually(seconds: 30) { state.withLock { $0.finished } == count }
    }

    private func send(sender: String, port: Int, rounds: Int) {
        var client: RawClient?
        var round = 0
        while round < rounds && !stopping.load(ordering: .acquiring) {
            round += 1
            let ids = (0..<20).map { "\(sender)-r\(round)-e\($0)" }
            let body = ClusterEvents.batch(ids)
            do {
                if client == nil { client = try RawClient(port: port, timeout: 10) }
                try client?.send(ClusterInstance.post("/v1/mobile/events", body))
                guard let response = try client?.readResponse() else { continue }
                switch response.status {
                case 200: state.withLock { $0.acknowledged.formUnion(ids) }
                case 503:
                    state.withLock { $0.unavailable += 1 }
                    // A client waits a little before asking again (Retry-After says a second; less here).
                    usleep(20_000)
                default: break
                }
            } catch {
                // The connection broke (an instance killed) or timed out: nothing was acknowledged. A sender
                // to a killed instance gives up once it cannot connect.
                client = nil
                guard (try? RawClient(port: port, timeout: 1)) != nil else { return }
            }
        }
    }
}
