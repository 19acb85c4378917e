import Dispatch
import Testing

@testable import GronaMockPlatform

/// The `Mutex` and `Atomic` macOS runs (the standard library's need macOS 15), tried here on Linux.
@Suite("Portable locks")
struct PortableLocksTests {
    @Test("eight threads adding 10,000 times each lose no update, through the mutex and the atomic")
    func concurrentUpdates() {
        let counter = PortableMutex(0)
        let atomic = PortableAtomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 {
                counter.withLock { $0 += 1 }
                atomic.add(1, ordering: .relaxed)
            }
        }
        #expect(counter.withLock { $0 } == 80_000)
        #expect(atomic.load(ordering: .acquiring) == 80_000)
    }

    @Test("withLockIfAvailable gives nil while another thread holds the lock, and the value once it is free")
    func tryLock() {
        let mutex = PortableMutex("free")
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            mutex.withLock { _ in
                held.signal()
                release.wait()
            }
            done.signal()
        }
        held.wait()
        #expect(mutex.withLockIfAvailable { $0 } == nil)
        release.signal()
        done.wait()
        #expect(mutex.withLockIfAvailable { $0 } == "free")
    }

    @Test("a typed error thrown inside withLock comes out as itself, and the lock is released")
    func typedThrows() {
        struct Refused: Error, Equatable {}
        let mutex = PortableMutex(1)
        #expect(throws: Refused.self) { try mutex.withLock { _ throws(Refused) in throw Refused() } }
        #expect(mutex.withLockIfAvailable { $0 } == 1)
    }

    @Test("exchange, store and subtract, with wrapping at the ends as the standard library's")
    func operations() {
        let flag = PortableAtomic(false)
        #expect(flag.exchange(true, ordering: .acquiringAndReleasing) == false)
        #expect(flag.exchange(true, ordering: .acquiringAndReleasing) == true)
        let deadline = PortableAtomic<UInt64>(0)
        deadline.store(.max, ordering: .relaxed)
        #expect(deadline.load(ordering: .relaxed) == .max)
        #expect(deadline.add(1, ordering: .relaxed).newValue == 0)
        let count = PortableAtomic<Int>(0)
        #expect(count.subtract(1, ordering: .relaxed) == (oldValue: 0, newValue: -1))
        count.store(.min, ordering: .relaxed)
        #expect(count.subtract(1, ordering: .relaxed).newValue == .max)
    }
}
