import Foundation
import GronaMockTestSupport
import Testing

@testable import grona_mock

/// The scratch directories `grona-mock exec` makes in TMPDIR for its throw-away database: one left by a run
/// killed outright is removed by a later run, and nothing else is touched.
@Suite("grona-mock exec: stale scratch directories")
struct ExecScratchDirectoryTests {
    @Test("a later run removes the scratch directory of a killed run, and keeps a live run's and what is not its own")
    func staleRemoved() throws {
        let fixture = try MockFixture.standard()
        let temporary = try ExecProcessGroupTests.temporaryDirectory(fixture)
        let files = FileManager.default

        // A run that goes on during the test.
        let live = try ExecProcessGroupTests.start(fixture, ["echo $$ > live.tmp && mv live.tmp live; exec sleep 1000"])
        let liveGroup = ExecProcessGroupTests.started(fixture, live, file: "live")
        defer { ExecProcessGroupTests.cleanUp(liveGroup) }
        let liveDirectory = try #require(try ExecProcessGroupTests.scratchDirectories(fixture).first)

        // A run killed with its watcher, as a machine's crash or a kill of the whole process tree would.
        let killed = try ExecProcessGroupTests.start(
            fixture, ["echo $$ > killed.tmp && mv killed.tmp killed; exec sleep 1000"])
        let killedGroup = ExecProcessGroupTests.started(fixture, killed, file: "killed")
        defer { ExecProcessGroupTests.cleanUp(killedGroup) }
        let killedDirectory = try #require(
            try ExecProcessGroupTests.scratchDirectories(fixture).first { $0 != liveDirectory })
        if let watcher = ProcessTable.watcher(of: killed.pid) { kill(watcher.pid, SIGKILL) }
        killed.signal(SIGKILL)
        #expect(killed.ending(within: 30) == .killed(signal: SIGKILL))
        ExecProcessGroupTests.cleanUp(killedGroup)
        let stale = temporary.appendingPathComponent(killedDirectory)
        #expect(files.fileExists(atPath: stale.path), "nothing removed it yet")

        // What is not a killed run's scratch directory, though named like one. Outside TMPDIR: a directory
        // holding the dead owner's record and a file, reached through a link; a link in the stale directory
        // to a file out there.
        let outside = fixture.root.appendingPathComponent("outside")
        try files.createDirectory(at: outside, withIntermediateDirectories: true)
        let precious = outside.appendingPathComponent("precious.txt")
        try Data("keep me".utf8).write(to: precious)
        let deadOwner = try? Data(contentsOf: stale.appendingPathComponent("owner"))
        try deadOwner?.write(to: outside.appendingPathComponent("owner"))
        try files.createSymbolicLink(
            at: temporary.appendingPathComponent("grona-mock-exec.link"), withDestinationURL: outside)
        try files.createSymbolicLink(at: stale.appendingPathComponent("escape"), withDestinationURL: precious)
        // An older grona-mock's, with no record: nothing says its owner is gone.
        let unrecorded = temporary.appendingPathComponent("grona-mock-exec.norecord")
        try files.createDirectory(at: unrecorded, withIntermediateDirectories: true)
        // Another user's, with the dead owner's record (only root can make one).
        let others = temporary.appendingPathComponent("grona-mock-exec.others")
        if getuid() == 0 {
            try files.createDirectory(at: others, withIntermediateDirectories: true)
            try deadOwner?.write(to: others.appendingPathComponent("owner"))
            #expect(chown(others.path, 65534, 65534) == 0)
        }

        let later = try ExecProcessGroupTests.start(fixture, ["true"])
        #expect(later.ending(within: 30) == .exited(0), "stderr: \(later.stderr)")
        #expect(!files.fileExists(atPath: stale.path), "the killed run's directory is removed")
        #expect(
            later.stderr.contains("removed the scratch directory of an earlier run that was killed path=\(stale.path)"),
            "\(later.stderr)")
        #expect(files.fileExists(atPath: temporary.appendingPathComponent(liveDirectory).path), "a live run's stays")
        #expect(files.fileExists(atPath: precious.path), "a link is removed, never followed")
        #expect(files.fileExists(atPath: outside.appendingPathComponent("owner").path))
        #expect(
            (try? files.destinationOfSymbolicLink(atPath: temporary.appendingPathComponent("grona-mock-exec.link").path))
                != nil, "a link to a directory is not one of exec's directories")
        #expect(files.fileExists(atPath: unrecorded.path))
        if getuid() == 0 { #expect(files.fileExists(atPath: others.path), "another user's stays") }

        live.signal(SIGTERM)
        #expect(live.ending(within: 30) == .exited(128 + SIGTERM))
        #expect(!files.fileExists(atPath: temporary.appendingPathComponent(liveDirectory).path))
    }

    /// The watcher removes the directory of the exec that named itself when it started the watcher, not of its
    /// parent: a watcher slow to start on a loaded machine may first look after exec was killed, when its parent
    /// is another process (a CI run once kept the directory so).
    @Test(
        "the watcher removes the scratch directory of the exec named on its command line, whoever its parent is",
        arguments: [(4242, true), (4243, false), (nil, false)] as [(pid_t?, Bool)])
    func watcherRemovesNamedExecsDirectory(named: pid_t?, removed: Bool) throws {
        let fixture = try MockFixture.standard()
        let files = FileManager.default
        // Owned by pid 4242, which is not the watcher's parent (this test process is).
        let scratch = fixture.root.appendingPathComponent("\(ScratchDirectory.prefix)named")
        try files.createDirectory(at: scratch, withIntermediateDirectories: true)
        try Data("pid 4242\n".utf8).write(to: scratch.appendingPathComponent(ScratchDirectory.ownerFile))
        try Data("rows".utf8).write(to: scratch.appendingPathComponent("events.sqlite"))

        let watcher = Process()
        watcher.executableURL = BinaryRunner.executable
        let options = WatchGroupCommand.Options(logFormat: .text, exec: named)
        watcher.arguments = [WatchGroupCommand.name] + options.arguments
        let messages = Pipe()
        watcher.standardInput = messages
        watcher.standardOutput = FileHandle.nullDevice
        watcher.standardError = FileHandle.nullDevice
        try watcher.run()
        defer { if watcher.isRunning { watcher.terminate() } }
        // End-of-file without "done": exec has died.
        messages.fileHandleForWriting.write(Data(WatchMessage.scratch(scratch.path).line.utf8))
        try messages.fileHandleForWriting.close()
        #expect(eventually(seconds: 30) { !watcher.isRunning }, "the watcher ends at end-of-file")
        #expect(files.fileExists(atPath: scratch.path) == !removed, "exec named: \(named.map(String.init) ?? "none")")
    }

    @Test("the watcher's options read back as written; a pid of 0, 1 or not a number names no exec")
    func watcherOptions() {
        let options = WatchGroupCommand.Options(logFormat: .json, exec: 4242)
        #expect(WatchGroupCommand.Options(options.arguments) == options)
        #expect(WatchGroupCommand.Options(["--log-format", "json"]) == WatchGroupCommand.Options(logFormat: .json))
        for pid in ["0", "1", "-7", "x", "99999999999"] {
            #expect(WatchGroupCommand.Options(["--exec", pid]).exec == nil, "--exec \(pid)")
        }
        #expect(WatchGroupCommand.Options(["--exec"]) == WatchGroupCommand.Options(), "a name without its value")
    }
}
