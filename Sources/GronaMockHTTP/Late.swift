import GronaMockJSON

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
