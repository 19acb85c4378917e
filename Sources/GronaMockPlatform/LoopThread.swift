#if canImport(Glibc)
import Glibc
import GronaMockCLinux
#elseif canImport(Darwin)
import Darwin
#endif

/// A joinable POSIX thread running one closure.
package struct LoopThread: @unchecked Sendable {
    #if canImport(Glibc)
    private let handle: pthread_t
    #else
    private let handle: pthread_t?
    #endif

    private final class Body {
        let run: @Sendable () -> Void
        let name: String
        init(run: @escaping @Sendable () -> Void, name: String) {
            self.run = run
            self.name = name
        }
    }

    package static func spawn(name: String, _ run: @escaping @Sendable () -> Void) -> LoopThread {
        // The engine's own threads (loops, writer) are made at start, where failing to make one is fatal.
        guard let thread = trySpawn(name: name, run) else { preconditionFailure("pthread_create failed") }
        return thread
    }

    /// A thread, or nil when the system refuses one (its thread limit): for work that can run on the
    /// caller's thread instead, such as a scan's read-ahead.
    package static func trySpawn(name: String, _ run: @escaping @Sendable () -> Void) -> LoopThread? {
        let unmanaged = Unmanaged.passRetained(Body(run: run, name: name))
        let body = unmanaged.toOpaque()
        #if canImport(Glibc)
        var handle = pthread_t()
        #else
        var handle: pthread_t?
        #endif
        let status = pthread_create(
            &handle, nil,
            { context in
                #if canImport(Glibc)
                let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
                _ = grona_set_thread_name(String(body.name.prefix(15)))
                #else
                let body = Unmanaged<Body>.fromOpaque(context).takeRetainedValue()
                _ = pthread_setname_np(String(body.name.prefix(15)))
                #endif
                body.run()
                return nil
            }, body)
        guard status == 0 else {
            unmanaged.release()
            return nil
        }
        return LoopThread(handle: handle)
    }

    /// Makes the calling thread yield the CPU to the others when they all want it: a nice value of 10, for
    /// background work such as copying the write-ahead log back, which must not delay the threads answering
    /// requests on a busy machine. Best effort: where it is refused, nothing else changes. (On Darwin a
    /// background QoS class would be the equivalent; not done, as that code is not compiled here.)
    package static func yieldToOthers() {
        #if canImport(Glibc)
        _ = grona_set_thread_nice(10)
        #endif
    }

    /// Online processors: the default number of event loops and pool threads.
    package static var coreCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    package func join() {
        #if canImport(Glibc)
        pthread_join(handle, nil)
        #else
        if let handle { pthread_join(handle, nil) }
        #endif
    }
}
