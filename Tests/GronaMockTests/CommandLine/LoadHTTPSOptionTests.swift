import Foundation
import GronaMockTestSupport
import Testing

/// `grona-mock load --cacert`: a file that cannot be used, or the option on an `http://` URL, is a usage error
/// (exit 64) before anything is sent, and the message carries the stable code.
@Suite("grona-mock load: --cacert")
struct LoadHTTPSOptionTests {
    @Test("a missing --cacert file is cacert_unreadable, one without a certificate cacert_invalid")
    func unusableCAFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("grona-cacert-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = directory.appendingPathComponent("empty.pem")
        try Data().write(to: empty)
        let missing = try BinaryRunner.run([
            "load", "--url", "https://127.0.0.1:1", "--cacert", directory.appendingPathComponent("no.pem").path,
        ])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("[cacert_unreadable]"), "stderr: \(missing.stderr)")
        let invalid = try BinaryRunner.run(["load", "--url", "https://127.0.0.1:1", "--cacert", empty.path])
        #expect(invalid.status == 64)
        #expect(invalid.stderr.contains("[cacert_invalid]"), "stderr: \(invalid.stderr)")
    }

    @Test("--cacert with an http:// URL is refused, not ignored")
    func caFileNeedsHTTPS() throws {
        let result = try BinaryRunner.run(["load", "--url", "http://127.0.0.1:1", "--cacert", "/dev/null"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--cacert is for an https:// --url"), "stderr: \(result.stderr)")
    }

    @Test("an https:// target nobody listens on is unreachable (exit 1), not a usage error")
    func httpsTargetIsAccepted() throws {
        let result = try BinaryRunner.run(["load", "--url", "https://127.0.0.1:1", "--duration", "1s", "--quiet"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("https://127.0.0.1:1 is unreachable"), "stderr: \(result.stderr)")
    }
}
