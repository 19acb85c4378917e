import Foundation
import GronaMockTestSupport
import Testing

@testable import grona_mock

/// What exec reads that another process wrote: `/proc/<pid>/stat`, a scratch directory's owner record, the
/// watcher's messages. Each is validated; anything else is refused, never guessed at.
@Suite("grona-mock exec: records it reads")
struct ExecRecordsTests {
    static func stat(_ text: String) -> ProcessStat? { ProcessStat(parsing: Array(text.utf8)[...]) }

    /// 52 fields as Linux writes them; `name` is the command name, `state`, group and start time are set.
    static func statLine(name: String, state: String = "S", group: Int = 4242, start: String = "987654") -> String {
        let tail = (23...52).map { String($0) }.joined(separator: " ")
        return "4243 (\(name)) \(state) 1 \(group) 4242 0 -1 4194304 100 0 0 0 1 2 0 0 20 0 1 0 \(start) \(tail)\n"
    }

    @Test("a stat line: state, group and start time, whatever the command name holds")
    func statParsing() throws {
        let plain = try #require(Self.stat(Self.statLine(name: "sleep")))
        #expect(plain.state == UInt8(ascii: "S") && plain.processGroup == 4242 && plain.startTime == 987_654)
        #expect(!plain.hasEnded)
        // A name may hold spaces and parentheses: the fields count from the last ")".
        let tricky = try #require(Self.stat(Self.statLine(name: "a) Z 1 2 (b", state: "Z")))
        #expect(tricky.state == UInt8(ascii: "Z") && tricky.hasEnded && tricky.processGroup == 4242)
        #expect(Self.stat(Self.statLine(name: "x", state: "X"))?.hasEnded == true)
        // The real one of this process.
        guard case .found(let own) = ProcessStat.lookUp(getpid()) else {
            Issue.record("no /proc/self/stat")
            return
        }
        #expect(own.processGroup == getpgrp())
        #expect(ProcessStat.lookUp(0) == .unknown)
    }

    @Test(
        "a stat line that is not one is refused",
        arguments: [
            "", "4243 sleep S 1 4242", statLine(name: "x", group: -1), statLine(name: "x", group: 99_999_999_999),
            statLine(name: "x", start: "12a"), statLine(name: "x", start: "99999999999999999999999"),
            statLine(name: "x", state: "SS"), "4243 (x) S 1 4242 4242",
        ])
    func statRefused(line: String) {
        #expect(Self.stat(line) == nil)
    }

    @Test("an owner record reads back as written")
    func ownerRoundTrip() throws {
        let owner = ScratchOwner(pid: 1234, startTime: 5678, bootID: "0b9e-42", pidNamespace: "pid:[4026531836]")
        #expect(ScratchOwner(record: Array(owner.record.utf8)) == owner)
        let bare = ScratchOwner(pid: 99, startTime: nil, bootID: nil)
        #expect(ScratchOwner(record: Array(bare.record.utf8)) == bare)
        let current = ScratchOwner.current()
        #expect(current.pid == getpid() && current.startTime != nil && !current.isGone, "this process runs")
        #expect(current.pidNamespace?.hasPrefix("pid:[") == true)
    }

    @Test(
        "an owner record that is not one is refused",
        arguments: ["", "pid 0\n", "pid 1\n", "pid -5\n", "pid x\n", "pid 12 13\n", "start 5\n", "pid 12\nuser 0\n"])
    func ownerRefused(record: String) {
        #expect(ScratchOwner(record: Array(record.utf8)) == nil)
    }

    @Test("an owner is gone when its pid is free, its start time or boot differ, or it is a zombie")
    func ownerGone() throws {
        let own = ScratchOwner.current()
        #expect(!own.isGone)
        #expect(ScratchOwner(pid: own.pid, startTime: (own.startTime ?? 0) + 1, bootID: own.bootID).isGone)
        #expect(ScratchOwner(pid: own.pid, startTime: own.startTime, bootID: "another-boot").isGone)
        // In another pid namespace the pid names another process: nothing can be said, so it stays.
        let elsewhere = ScratchOwner(pid: own.pid, startTime: 1, bootID: own.bootID, pidNamespace: "pid:[1]")
        #expect(!elsewhere.isGone)
        // A process that has ended: first a zombie (not collected yet), then no process at all (or, should its
        // pid be given to another already, one with another start time).
        var pid: pid_t = 0
        let words: [String] = ["/bin/sleep", "1000"]
        let arguments = words.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        #expect(posix_spawn(&pid, "/bin/sleep", nil, nil, arguments, nil) == 0)
        guard case .found(let running) = ProcessStat.lookUp(pid) else {
            Issue.record("no /proc entry for the child")
            return
        }
        let owner = ScratchOwner(
            pid: pid, startTime: running.startTime, bootID: ProcessStat.bootID, pidNamespace: ProcessStat.pidNamespace)
        #expect(!owner.isGone)
        kill(pid, SIGKILL)
        let ended = eventually {
            guard case .found(let now) = ProcessStat.lookUp(pid) else { return false }
            return now.hasEnded
        }
        #expect(ended, "it became a zombie")
        #expect(owner.isGone, "a zombie")
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        #expect(owner.isGone, "collected")
    }

    @Test(
        "watcher messages: a group above 1, an absolute path, done; nothing else",
        arguments: [
            ("group 4242", WatchMessage.group(4242)), ("done", .done),
            ("scratch /tmp/grona-mock-exec.a b", .scratch("/tmp/grona-mock-exec.a b")),
            ("group 1", nil), ("group 0", nil), ("group -4242", nil), ("group", nil), ("group 12x", nil),
            ("group 99999999999", nil), ("scratch tmp/x", nil), ("scratch ", nil), ("done ", nil), ("kill 1", nil),
        ] as [(String, WatchMessage?)])
    func watchMessages(line: String, expected: WatchMessage?) {
        #expect(WatchMessage(line: Array(line.utf8)[...]) == expected)
        if let expected { #expect(expected.line == line + "\n") }
    }

    @Test("the watcher reads its messages from a pipe, skips an over-long line whole, and stops at end-of-file")
    func watchReader() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let text = "group 77\n" + String(repeating: "x", count: 20_000) + "\nscratch /tmp/a\nbogus\ndone\n"
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) } == bytes.count)
        close(ends[1])
        defer { close(ends[0]) }
        var reader = WatchMessage.Reader(descriptor: ends[0])
        var messages: [WatchMessage] = []
        while let message = reader.next() { messages.append(message) }
        #expect(messages == [.group(77), .scratch("/tmp/a"), .done])
        #expect(WatchMessage.scratch("/tmp/a\nb").validated == nil, "a path a line cannot carry is not sent")
    }
}
