import GronaMockCAtomics

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The engine's `Mutex` and `Atomic`: the standard library's (Synchronization) where it has them on every
/// supported version, that is Linux; on Darwin, where they need macOS 15 and the package declares macOS 13,
/// the portable ones below, which have the same calls. The portable ones are compiled and tested on Linux too
/// (`PortableLocksTests`), so the code macOS runs is not left untried.
///
/// Hold a closure in a struct, not as a `Mutex`'s value itself: a function-typed value is stored at its most
/// general abstraction, and each `withLock` hands its body a reabstracted copy and stores it back, two more thunks
/// around the closure every time (the live feed's listener grew slower with every commit; `LiveFeed.Listener`).
#if canImport(Darwin)
package typealias Mutex<Value> = PortableMutex<Value>
package typealias Atomic<Value: AtomicWord> = PortableAtomic<Value>
#else
@_exported import Synchronization
#endif

/// A value behind a lock, with the calls of the standard library's `Synchronization.Mutex` (`withLock`,
/// `withLockIfAvailable`): a pthread mutex. A class, so a `let` holds it as the standard one's `let` does.
package final class PortableMutex<Value>: @unchecked Sendable {
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

/// The orderings the standard library's atomics take. Every operation of this `Atomic` is sequentially
/// consistent whatever is asked; the argument stays so that call sites read as they would with
/// `Synchronization.Atomic`.
package struct PortableAtomicOrdering: Sendable {
    package static let relaxed = PortableAtomicOrdering()
    package static let acquiring = PortableAtomicOrdering()
    package static let releasing = PortableAtomicOrdering()
    package static let acquiringAndReleasing = PortableAtomicOrdering()
    package static let sequentiallyConsistent = PortableAtomicOrdering()
}

/// A value that fits one 64-bit word, for `Atomic`.
package protocol AtomicWord: Sendable {
    var atomicWord: Int64 { get }
    init(atomicWord: Int64)
}

extension Int: AtomicWord {
    package var atomicWord: Int64 { Int64(self) }
    package init(atomicWord: Int64) { self = Int(truncatingIfNeeded: atomicWord) }
}

extension UInt64: AtomicWord {
    package var atomicWord: Int64 { Int64(bitPattern: self) }
    package init(atomicWord: Int64) { self = UInt64(bitPattern: atomicWord) }
}

extension Bool: AtomicWord {
    package var atomicWord: Int64 { self ? 1 : 0 }
    package init(atomicWord: Int64) { self = atomicWord != 0 }
}

/// A value read and changed whole from any thread, with the standard library's `Atomic` calls: one 64-bit
/// word changed through the compiler's atomic builtins (GronaMockCAtomics), every operation sequentially
/// consistent. The standard one needs macOS 15.
package final class PortableAtomic<Value: AtomicWord>: @unchecked Sendable {
    // @unchecked: `word` is only touched through the atomic builtins.
    private let word: UnsafeMutablePointer<Int64>

    package init(_ value: Value) {
        word = .allocate(capacity: 1)
        word.initialize(to: value.atomicWord)
    }

    deinit {
        word.deinitialize(count: 1)
        word.deallocate()
    }

    package func load(ordering: PortableAtomicOrdering) -> Value { Value(atomicWord: grona_mock_atomic_load(word)) }

    package func store(_ value: Value, ordering: PortableAtomicOrdering) {
        grona_mock_atomic_store(word, value.atomicWord)
    }

    /// Sets `value` and returns what was there.
    package func exchange(_ value: Value, ordering: PortableAtomicOrdering) -> Value {
        Value(atomicWord: grona_mock_atomic_exchange(word, value.atomicWord))
    }
}

extension PortableAtomic where Value: FixedWidthInteger {
    /// Adds, wrapping on overflow as the standard library's `add` does.
    @discardableResult
    package func add(_ operand: Value, ordering: PortableAtomicOrdering) -> (oldValue: Value, newValue: Value) {
        let old = Value(atomicWord: grona_mock_atomic_fetch_add(word, operand.atomicWord))
        return (old, old &+ operand)
    }

    @discardableResult
    package func subtract(_ operand: Value, ordering: PortableAtomicOrdering) -> (oldValue: Value, newValue: Value) {
        let old = Value(atomicWord: grona_mock_atomic_fetch_add(word, (0 &- operand).atomicWord))
        return (old, old &- operand)
    }
}
