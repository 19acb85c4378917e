import GronaMockPlatform
import GronaMockTestSupport
import Testing

@testable import GronaMockHTTP

/// The producer of a streamed body is kept between pieces: reaching it must cost the same at every piece.
@Suite("HTTP streamed bodies: the producer")
struct HTTPBodyStreamProducerTests {
    @Test("the producer is reached through as many frames at its thousandth piece as at its first")
    func producerIsNotRewrapped() {
        let addresses = Mutex<[UInt]>([])
        let inline: @Sendable (@escaping @Sendable () -> Void) -> Void = { $0() }
        let stream = HTTPBodyStream(state: 0, executor: inline) { count in
            addresses.withLock { $0.append(currentStackAddress()) }
            count += 1
            return count <= 1_000 ? [0] : nil
        }
        for _ in 0..<1_000 { stream.pull { _ in } }
        let seen = addresses.withLock { $0 }
        #expect(seen.count == 1_000)
        // A closure stored as a `Mutex`'s value was wrapped in two more thunks at every piece: 2,000 frames
        // between the caller and the producer by the last piece.
        let first = seen.first ?? 0
        let deepest = seen.min() ?? 0
        #expect(first - deepest < 256, "the producer ran \(first - deepest) bytes deeper in the stack")
    }
}
