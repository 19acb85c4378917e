#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a lock, with the calls of the standard library's `Synchronization.Mutex` (`withLock`,
/// `withLockIfAvailable`). That one needs macOS 15, and the test kit promises macOS 13: this one is a
/// pthread mutex, on every platform. A class, so a `let` holds it as the standard one's `let` does.
package final class Mutex<Value>: @unchecked Sendable {
    // @unchecked: `value` is read and written only with `lock` held.
    private var value: Value
    private let lock: UnsafeMutablePointer<pthread_mutex_t>

    package init(_ value: Value) {
        self.value = value
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_mutex_t())
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deinitialize(count: 1)
        lock.deallocate()
    }

    /// Runs `body` with the value, holding the lock, waiting for it.
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body(&value)
    }

    /// Runs `body` holding the lock if it is free now; nil when another thread holds it.
    package func withLockIfAvailable<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result? {
        guard pthread_mutex_trylock(lock) == 0 else { return nil }
        defer { pthread_mutex_unlock(lock) }
        return try body(&value)
    }
}

/// The orderings the standard library's atomics take. This `Atomic` is a lock, so every operation is
/// sequentially consistent whatever is asked; the argument stays so that call sites read as they would with
/// `Synchronization.Atomic`.
package struct AtomicOrdering: Sendable {
    package static let relaxed = AtomicOrdering()
    package static let acquiring = AtomicOrdering()
    package static let releasing = AtomicOrdering()
    package static let acquiringAndReleasing = AtomicOrdering()
    package static let sequentiallyConsistent = AtomicOrdering()
}

/// A value read and changed whole from any thread: the standard library's `Atomic` calls, on a `Mutex`, for
/// macOS 13. None of its uses is on a per-request path (connection counts, stop flags, round-robin counters).
package final class Atomic<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    package init(_ value: Value) { storage = Mutex(value) }

    package func load(ordering: AtomicOrdering) -> Value { storage.withLock { $0 } }

    package func store(_ value: Value, ordering: AtomicOrdering) { storage.withLock { $0 = value } }

    /// Sets `value` and returns what was there.
    package func exchange(_ value: Value, ordering: AtomicOrdering) -> Value {
        storage.withLock { current in
            defer { current = value }
            return current
        }
    }
}

extension Atomic where Value: FixedWidthInteger {
    /// Adds, wrapping on overflow as the standard library's `add` does.
    @discardableResult
    package func add(_ operand: Value, ordering: AtomicOrdering) -> (oldValue: Value, newValue: Value) {
        storage.withLock { current in
            let old = current
            current = old &+ operand
            return (old, current)
        }
    }

    @discardableResult
    package func subtract(_ operand: Value, ordering: AtomicOrdering) -> (oldValue: Value, newValue: Value) {
        storage.withLock { current in
            let old = current
            current = old &- operand
            return (old, current)
        }
    }
}
