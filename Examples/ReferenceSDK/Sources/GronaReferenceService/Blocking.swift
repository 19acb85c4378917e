import Foundation

/// Runs async work to completion from a server thread. The service's threads are its own, not the concurrency
/// runtime's, so blocking one while the task runs on the cooperative pool is safe; that is how a command
/// returns only once the SDK work it caused has settled.
/// Nil only if the task ended without a value, which the semaphore rules out.
func runBlocking<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T? {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.value = await work()
        done.signal()
    }
    done.wait()
    return box.value
}

private final class ResultBox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T?

    var value: T? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
