/// A value set once after construction, for two objects that must refer to each other (the event store
/// notifies the long-polls, which read the store).
package final class Late<Value: Sendable>: Sendable {
    private let storage = Mutex<Value?>(nil)

    package init() {}

    package var value: Value? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}

/// The same, held weakly: for a reference back to an object that its owner keeps alive. A strong one closes a
/// loop (the event store notifies the long-polls, which read the store through this), and then nothing in it
/// is ever freed: each test server stopped and let go kept its database's checkpoint thread and some fourteen
/// descriptors for good.
package final class WeakLate<Value: AnyObject & Sendable>: Sendable {
    /// `@unchecked`: `value` is only read and written under the mutex, and `Value` is Sendable.
    private struct Reference: @unchecked Sendable {
        weak var value: Value?
    }

    private let storage = Mutex(Reference())

    package init() {}

    package var value: Value? {
        get { storage.withLock { $0.value } }
        set { storage.withLock { $0.value = newValue } }
    }
}
