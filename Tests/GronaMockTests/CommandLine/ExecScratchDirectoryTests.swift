import Foundation
import GronaMockTestSupport
import Testing

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
}
