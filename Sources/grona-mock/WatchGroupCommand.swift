import GronaMockPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `grona-mock __watch-group`: the watcher `exec` starts (see `GroupWatcher`), internal and not in the help.
///
/// It reads `WatchMessage` lines from its standard input, a pipe only exec writes to. "done" ends it
/// without touching anything. End-of-file without "done" means exec died: the command's group is sent
/// SIGTERM (and SIGCONT, so that a stopped member hears it), then SIGKILL if any of it still runs after
/// `grace`, all within a second of exec's end; then exec's scratch directory is removed.
///
/// Once exec has died, the command (the group's leader) is no one's to hold as a zombie, so the group's id
/// could in principle be given to a new group once all its members have gone. The watcher looks before each
/// signal and stops looking the moment the group is empty; only a wrap-around of the pids within one 10 ms
/// poll could fool it.
enum WatchGroupCommand {
    static let name = "__watch-group"

    /// Signals that must not end the watcher before exec does: the terminal's, and those exec passes on.
    static let ignoredSignals: [Int32] = [SIGINT, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2]

    /// Between SIGTERM and SIGKILL: short, so that the group is gone within a second of exec's death.
    static let grace: Duration = .milliseconds(500)

    static func run(_ arguments: [String]) -> Int32 {
        var ignored = sigset_t()
        sigemptyset(&ignored)
        for number in ignoredSignals {
            signal(number, SIG_IGN)
            sigaddset(&ignored, number)
        }
        // Blocked by exec from the first instruction; ignored now, they may be let through.
        pthread_sigmask(SIG_UNBLOCK, &ignored, nil)
        let options = Options(arguments)
        let logger = Logger(format: options.logFormat)

        var reader = WatchMessage.Reader(descriptor: STDIN_FILENO)
        var group: ProcessGroup?
        var scratch: String?
        while let message = reader.next() {
            switch message {
            case .group(let id): group = ProcessGroup(id: id)
            case .scratch(let path): scratch = path
            case .done: return 0
            }
        }
        if let group, group.hasRunningMembers {
            stop(group)
            logger.warning(
                "grona-mock exec ended without stopping its command; stopped the command's process group",
                [("processGroup", Int(group.id))])
        }
        if let scratch, let exec = options.exec, ScratchDirectory.removeAbandoned(scratch, by: exec) {
            logger.info("removed the scratch directory of grona-mock exec", [("path", scratch)])
        }
        return 0
    }

    /// `--log-format text|json --exec PID`, as `GroupWatcher` starts it; anything else is left at its default.
    struct Options: Equatable {
        var logFormat: Logger.Format = .text
        /// exec, whose scratch directory this watcher may remove. Named by exec as it starts the watcher, never
        /// taken from `getppid()`: that names exec only while exec lives, and a watcher slow to start (a loaded
        /// machine) may first look after exec was killed, and would then keep the directory. Nil: none is removed.
        var exec: pid_t?

        init(logFormat: Logger.Format = .text, exec: pid_t? = nil) {
            self.logFormat = logFormat
            self.exec = exec
        }

        init(_ arguments: [String]) {
            var pairs = arguments[...]
            while pairs.count >= 2 {
                let (name, value) = (pairs.removeFirst(), pairs.removeFirst())
                switch name {
                case "--log-format": logFormat = Logger.Format(rawValue: value) ?? .text
                case "--exec": exec = pid_t(value).flatMap { $0 > 1 ? $0 : nil }
                default: break
                }
            }
        }

        var arguments: [String] {
            ["--log-format", logFormat.rawValue] + (exec.map { ["--exec", String($0)] } ?? [])
        }
    }

    private static func stop(_ group: ProcessGroup) {
        group.signal(SIGTERM)
        group.signal(SIGCONT)
        let deadline = ContinuousClock.now + grace
        while ContinuousClock.now < deadline {
            guard group.hasRunningMembers else { return }
            usleep(10_000)
        }
        if group.hasRunningMembers { group.signal(SIGKILL) }
    }
}

/// One line from exec to its watcher.
enum WatchMessage: Equatable {
    /// The command's process group.
    case group(pid_t)
    /// exec's scratch directory, an absolute path.
    case scratch(String)
    /// exec is done with the group: leave it alone.
    case done

    var line: String {
        switch self {
        case .group(let id): "group \(id)\n"
        case .scratch(let path): "scratch \(path)\n"
        case .done: "done\n"
        }
    }

    /// The message, or nil when its line could not be read back as it (a path with a line break).
    var validated: WatchMessage? {
        var line = Array(line.utf8)
        line.removeLast()
        return WatchMessage(line: line[...]) == self ? self : nil
    }

    /// Nil for a line that is not a message: a group id must be above 1 (`ProcessGroup`), a path absolute.
    init?(line: ArraySlice<UInt8>) {
        let text = String(decoding: line, as: UTF8.self)
        if text == "done" {
            self = .done
        } else if text.hasPrefix("group "), let id = pid_t(text.dropFirst(6)), id > 1 {
            self = .group(id)
        } else if text.hasPrefix("scratch /"), !text.contains("\n") {
            self = .scratch(String(text.dropFirst(8)))
        } else {
            return nil
        }
    }

    /// Reads messages from a descriptor, a line at a time; a line over 8 KiB is skipped whole.
    struct Reader {
        let descriptor: Int32
        private var buffer: [UInt8] = []
        private var skipping = false
        private static let maxLine = 8192

        init(descriptor: Int32) { self.descriptor = descriptor }

        /// The next message; nil at end-of-file or on a read error (both mean exec has gone).
        mutating func next() -> WatchMessage? {
            while true {
                if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = Array(buffer[..<newline])
                    buffer.removeSubrange(...newline)
                    let wasSkipping = skipping
                    skipping = false
                    if !wasSkipping, let message = WatchMessage(line: line[...]) { return message }
                    continue
                }
                if buffer.count > Self.maxLine {
                    buffer.removeAll()
                    skipping = true
                }
                var chunk = [UInt8](repeating: 0, count: 4096)
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return nil }
                buffer += chunk[..<count]
            }
        }
    }
}
