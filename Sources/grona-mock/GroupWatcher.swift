import GronaMockPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Exec's side of the watcher (`WatchGroupCommand`), which stops the command's process group when exec dies
/// without stopping it itself: killed, even by SIGKILL, which nothing in exec can catch.
///
/// The watcher is grona-mock itself again (forking this multithreaded process and running Swift in the
/// child would not be safe), in a process group of its own (Ctrl-C and a kill of exec's group do not reach
/// it), reading a pipe whose write end only exec holds: close-on-exec, so neither the command nor the watcher
/// inherits it. When exec ends, however it ends, the kernel closes that end; the watcher reads "done" first
/// when exec ended normally, and end-of-file alone when it did not.
///
/// Not `PR_SET_PDEATHSIG`: set on the watcher it would kill the watcher exactly when it is needed, and set on
/// the command (impossible through `posix_spawn`, which has no hook before the new program starts) it would
/// reach the command alone, not what it started.
struct GroupWatcher {
    let pid: pid_t
    /// The write end of the pipe.
    private let channel: Int32
    private let logger: Logger

    /// Starts the watcher; nil, with a warning, when it cannot be started (the command still runs, without
    /// that protection).
    static func start(logFormat: Logger.Format, logger: Logger) -> GroupWatcher? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            logger.warning("cannot start the process-group watcher", [("reason", String(cString: strerror(errno)))])
            return nil
        }
        // Both ends above the standard descriptors and close-on-exec: the read end is handed to the watcher
        // as its standard input below (dup2 clears the flag on the copy), the write end to no one.
        let reading = fcntl(ends[0], F_DUPFD_CLOEXEC, 3)
        let writing = fcntl(ends[1], F_DUPFD_CLOEXEC, 3)
        close(ends[0])
        close(ends[1])
        defer { if reading >= 0 { close(reading) } }
        guard reading >= 0, writing >= 0 else {
            if writing >= 0 { close(writing) }
            logger.warning("cannot start the process-group watcher", [("reason", String(cString: strerror(errno)))])
            return nil
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, reading, STDIN_FILENO)
        // Not exec's standard output: a caller reading it to its end must not wait for the watcher.
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own group: the terminal's Ctrl-C and a signal to exec's whole group leave it alone. The
        // terminal's signals are blocked from its first instruction (it ignores them itself as it starts).
        posix_spawnattr_setpgroup(&attributes, 0)
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for signal in WatchGroupCommand.ignoredSignals { sigaddset(&blocked, signal) }
        posix_spawnattr_setsigmask(&attributes, &blocked)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGTERM)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        guard let executable = ownExecutable() else {
            close(writing)
            logger.warning(
                "cannot start the process-group watcher", [("reason", "cannot find grona-mock's own binary")])
            return nil
        }
        let options = WatchGroupCommand.Options(logFormat: logFormat, exec: getpid())
        let arguments = ["grona-mock", WatchGroupCommand.name] + options.arguments
        var pointers = arguments.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        var pid: pid_t = 0
        let error = posix_spawn(&pid, executable, &actions, &attributes, &pointers, environ)
        guard error == 0 else {
            close(writing)
            logger.warning("cannot start the process-group watcher", [("reason", String(cString: strerror(error)))])
            return nil
        }
        return GroupWatcher(pid: pid, channel: writing, logger: logger)
    }

    /// The binary this process runs: `/proc/self/exe` on Linux, which names it even if the file was replaced
    /// since; the loader's record of it on macOS.
    private static func ownExecutable() -> String? {
        #if os(Linux)
        return "/proc/self/exe"
        #elseif canImport(Darwin)
        var size: UInt32 = 0
        _ = _NSGetExecutablePath(nil, &size)
        var buffer = [CChar](repeating: 0, count: Int(size) + 1)
        guard _NSGetExecutablePath(&buffer, &size) == 0 else { return nil }
        return String(cString: buffer)
        #else
        return nil
        #endif
    }

    /// Tells the watcher the group to stop if exec dies.
    func watch(_ group: ProcessGroup) { send(.group(group.id)) }

    /// Tells the watcher the scratch directory to remove if exec dies.
    func removeIfKilled(_ scratch: ScratchDirectory) {
        guard let message = WatchMessage.scratch(scratch.path).validated else { return }
        send(message)
    }

    /// Tells the watcher that exec is done with the group, and waits (up to a second) for it to exit.
    func finish() {
        send(.done)
        close(channel)
        // Polled finely: it exits the moment it reads "done" (or, after a short command, once it has
        // started), and every run of exec waits for this.
        var status: Int32 = 0
        for _ in 0..<500 {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno != EINTR) { return }
            usleep(2_000)
        }
    }

    /// After a SIGCHLD: if the watcher has ended (it should not before exec), collects it and says so.
    func noticeIfEnded() {
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return }
        logger.warning(
            "the process-group watcher ended early: if exec is killed, the command's processes stay",
            [("status", Int(status))])
    }

    private func send(_ message: WatchMessage) {
        var line = message.line
        line.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                guard let base = bytes.baseAddress else { return }
                let written = write(channel, base + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                // The watcher is gone (EPIPE; SIGPIPE is ignored): nothing to tell.
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}
