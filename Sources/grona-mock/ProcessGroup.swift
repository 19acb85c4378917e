#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process group the command of `grona-mock exec` leads: what exec passes signals to, and stops when the
/// command has ended, so that what the command started (a shell's background jobs, a test runner's workers)
/// goes with it.
///
/// A group's id is its leader's pid, and it can be given to a new group once every member has gone: the
/// callers make sure they own the group when they signal it (see `CommandGroupState`, `WatchGroupCommand`).
struct ProcessGroup: Equatable {
    let id: pid_t

    /// Nil for an id that does not name one group: `kill(-1, …)` would signal every process we may signal,
    /// and `kill(0, …)` our own group.
    init?(id: pid_t) {
        guard id > 1 else { return nil }
        self.id = id
    }

    /// Sends `signal` to every member; false when the group has none (ESRCH) or refused it.
    @discardableResult
    func signal(_ signal: Int32) -> Bool { kill(-id, signal) == 0 }

    /// Whether a member still runs. Zombies do not count: they have ended and only wait for their parent
    /// (the command is one while exec holds its status, so that its pid, the group's id, stays taken).
    var hasRunningMembers: Bool {
        #if os(Linux)
        if let running = Self.scanProc(for: id) { return running }
        #elseif canImport(Darwin)
        if let running = Self.askKernel(for: id) { return running }
        #endif
        // Nothing better at hand: any member at all, zombies included.
        return kill(-id, 0) == 0
    }

    #if os(Linux)
    /// Walks `/proc` (a few hundred small reads on a busy machine); nil when it cannot be read.
    private static func scanProc(for group: pid_t) -> Bool? {
        guard let directory = opendir("/proc") else { return nil }
        defer { closedir(directory) }
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 19
        while let entry = readdir(directory) {
            let name = UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self)
            // Processes are the entries named by a number (1 to 9 first); the rest is the kernel's.
            guard name.pointee >= 0x31, name.pointee <= 0x39, let pid = pid_t(String(cString: name)) else { continue }
            if case .found(let stat) = ProcessStat.lookUp(pid), stat.processGroup == group, !stat.hasEnded {
                return true
            }
        }
        return false
    }
    #elseif canImport(Darwin)
    /// `sysctl` KERN_PROC_PGRP: the group's members with their state; nil when it fails.
    private static func askKernel(for group: pid_t) -> Bool? {
        var name: [Int32] = [CTL_KERN, KERN_PROC, KERN_PROC_PGRP, group]
        var size = 0
        guard sysctl(&name, UInt32(name.count), nil, &size, nil, 0) == 0 else { return nil }
        let stride = MemoryLayout<kinfo_proc>.stride
        // Room for a few members more than a moment ago.
        var members = [kinfo_proc](repeating: kinfo_proc(), count: size / stride + 8)
        size = members.count * stride
        guard sysctl(&name, UInt32(name.count), &members, &size, nil, 0) == 0 else { return nil }
        return members.prefix(size / stride).contains { Int32($0.kp_proc.p_stat) != SZOMB }
    }
    #endif
}
