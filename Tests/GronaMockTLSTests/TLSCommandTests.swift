import Foundation
import GronaMockTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `grona-mock tls init`, `tls trust` and `serve --tls-port`, run as the built binary, with what they write
/// checked by openssl and Python as a device's rules would.
@Suite("grona-mock tls and serve --tls-port", .serialized)
struct TLSCommandTests {
    final class Directory {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("grona-tls-cli-\(UUID().uuidString)")
        var path: String { url.path }
        func file(_ name: String) -> String { url.appendingPathComponent(name).path }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0 }
        return info.st_mode & 0o777
    }

    static func text(_ certificate: String) throws -> String {
        try runTool(["openssl", "x509", "-in", certificate, "-noout", "-text"]).output
    }

    @Test("init makes a name-constrained P-256 CA and a server certificate devices accept; keys 0600, never printed")
    func initWritesWhatDevicesAccept() throws {
        let directory = Directory()
        let run = try grona(["tls", "init", "--dir", directory.path, "--name", "example.test", "--name", "192.0.2.10"])
        #expect(run.status == 0, "\(run.all)")
        #expect(run.output.contains("created a new CA"))
        #expect(Self.mode(directory.file("ca-key.pem")) == 0o600)
        #expect(Self.mode(directory.file("server-key.pem")) == 0o600)
        #expect(Self.mode(directory.path) == 0o700)
        let key = try String(contentsOfFile: directory.file("ca-key.pem"), encoding: .utf8)
        let keyBody = key.split(separator: "\n").dropFirst().first.map(String.init) ?? "missing"
        #expect(!run.all.contains("PRIVATE KEY") && !run.all.contains(keyBody))

        let authority = try Self.text(directory.file("ca.pem"))
        #expect(authority.contains("ASN1 OID: prime256v1"))
        #expect(authority.contains("X509v3 Basic Constraints: critical\n                CA:TRUE"))
        #expect(authority.contains("X509v3 Key Usage: critical\n                Certificate Sign, CRL Sign"))
        #expect(authority.contains("X509v3 Name Constraints: critical"))
        for permitted in [
            "DNS:localhost", "DNS:local", "DNS:example.test", "IP:127.0.0.0/255.0.0.0", "IP:10.0.0.0/255.0.0.0",
            "IP:172.16.0.0/255.240.0.0", "IP:192.168.0.0/255.255.0.0", "IP:192.0.2.10/255.255.255.255",
            "IP:FC00:0:0:0:0:0:0:0/FE00:0:0:0:0:0:0:0",
        ] {
            #expect(authority.contains(permitted), "\(permitted)")
        }

        let server = try Self.text(directory.file("server.pem"))
        for name in [
            "DNS:localhost", "IP Address:127.0.0.1", "IP Address:0:0:0:0:0:0:0:1", "IP Address:10.0.2.2",
            "DNS:example.test", "IP Address:192.0.2.10",
        ] {
            #expect(server.contains(name), "\(name)")
        }
        #expect(server.contains("X509v3 Extended Key Usage: \n                TLS Web Server Authentication"))
        #expect(server.contains("X509v3 Key Usage: critical\n                Digital Signature"))
        #expect(server.contains("Signature Algorithm: ecdsa-with-SHA256"))
        // Apple: 825 days at most for a TLS server certificate (support.apple.com/en-us/103769).
        let days = try runTool([
            "python3", "-c",
            "import ssl,sys; c=ssl._ssl._test_decode_cert(sys.argv[1]); "
                + "print((ssl.cert_time_to_seconds(c['notAfter'])-ssl.cert_time_to_seconds(c['notBefore']))/86400)",
            directory.file("server.pem"),
        ])
        #expect((Double(days.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 9999) <= 825, "\(days.all)")
        let serial = try runTool(["openssl", "x509", "-in", directory.file("server.pem"), "-noout", "-serial"]).output
        #expect(serial.trimmingCharacters(in: .whitespacesAndNewlines).count >= "serial=".count + 31)
        let verified = try runTool([
            "openssl", "verify", "-CAfile", directory.file("ca.pem"), "-purpose", "sslserver",
            directory.file("server.pem"),
        ])
        #expect(verified.output.contains(": OK"), "\(verified.all)")
    }

    @Test("init again keeps the CA and reissues the server certificate; a name the CA cannot sign for asks for --force")
    func initAgainKeepsTheCA() throws {
        let directory = Directory()
        #expect(try grona(["tls", "init", "--dir", directory.path]).status == 0)
        let authority = try Data(contentsOf: URL(fileURLWithPath: directory.file("ca.pem")))
        let server = try Data(contentsOf: URL(fileURLWithPath: directory.file("server.pem")))

        let again = try grona(["tls", "init", "--dir", directory.path, "--name", "printer.local"])
        #expect(again.status == 0, "\(again.all)")
        #expect(again.output.contains("kept the existing CA"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("ca.pem"))) == authority)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("server.pem"))) != server)

        let outside = try grona(["tls", "init", "--dir", directory.path, "--name", "198.51.100.7"])
        #expect(outside.status == 1)
        #expect(outside.error.contains("--force"), "\(outside.all)")

        let forced = try grona(["tls", "init", "--dir", directory.path, "--name", "198.51.100.7", "--force"])
        #expect(forced.status == 0, "\(forced.all)")
        #expect(forced.output.contains("created a new CA"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("ca.pem"))) != authority)
    }

    @Test("init keeps a CA whose key other users could read only after making it 0600 again, and says so")
    func initRestrictsAnExposedKey() throws {
        let directory = Directory()
        #expect(try grona(["tls", "init", "--dir", directory.path]).status == 0)
        #expect(chmod(directory.file("ca-key.pem"), 0o644) == 0)
        let again = try grona(["tls", "init", "--dir", directory.path])
        #expect(again.status == 0, "\(again.all)")
        #expect(Self.mode(directory.file("ca-key.pem")) == 0o600)
        #expect(again.error.contains("could be read by other users (mode 644)"), "\(again.all)")
        #expect(again.error.contains("--force"), "\(again.all)")
    }

    /// A mistyped address would be certified as a DNS name and added to the CA's permitted names.
    @Test(
        "init refuses a --name that is no host name or address with exit 64, a hint, and nothing written",
        arguments: [
            ("10.0.0.300", "four numbers"), ("1.2.3.4.5", "four numbers"), ("*.example.test", "wildcard"),
            ("bücher.local", "xn--"), ("a..b", "neither an IP address nor a DNS name"),
        ])
    func initRefusesBadNames(name: String, hint: String) throws {
        let directory = Directory()
        let run = try grona(["tls", "init", "--dir", directory.path, "--name", name])
        #expect(run.status == 64, "\(run.all)")
        #expect(run.error.contains(hint), "\(run.all)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("ca-key.pem")))
    }

    @Test("trust exports the CA as PEM and DER and prints the steps for each platform")
    func trustPrintsTheSteps() throws {
        let directory = Directory()
        #expect(try grona(["tls", "init", "--dir", directory.path]).status == 0)
        let run = try grona(["tls", "trust", "--dir", directory.path])
        #expect(run.status == 0, "\(run.all)")
        for step in [
            directory.file("ca.pem"), directory.file("ca.der"), "security add-trusted-cert",
            "xcrun simctl keychain booted add-root-cert", "Certificate Trust Settings", "<certificates src=\"user\"/>",
            "@raw/grona_mock_ca", "curl --cacert", "SecTrustSetAnchorCertificates", "https://10.0.2.2:8443",
            "sudo cp \(directory.file("ca.pem")) /usr/local/share/ca-certificates/grona-mock-local-ca.crt",
            "sudo update-ca-certificates",
            "certutil -d sql:$HOME/.pki/nssdb -A -t \"C,,\" -n \"grona-mock local CA\" -i \(directory.file("ca.pem"))",
        ] {
            #expect(run.output.contains(step), "\(step)")
        }
        let der = try runTool([
            "openssl", "x509", "-in", directory.file("ca.der"), "-inform", "DER", "-noout", "-fingerprint", "-sha256",
        ])
        let fingerprint = der.output.split(separator: "=").last.map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(fingerprint.map { run.output.contains($0) } == true, "\(der.all)")

        let missing = try grona(["tls", "trust", "--dir", directory.file("nothing")])
        #expect(missing.status == 1)
        #expect(missing.error.contains("grona-mock tls init"))
    }

    @Test("serve --tls-port without a certificate says to run 'grona-mock tls init'")
    func serveWithoutCertificate() throws {
        let home = Directory()
        let run = try grona(
            ["serve", "--port", "none", "--tls-port", "0", "--db", ":memory:"], environment: ["HOME": home.path])
        #expect(run.status == 64)
        #expect(run.error.contains("run 'grona-mock tls init' first"), "\(run.all)")
        #expect(run.error.contains(home.path + "/.grona-mock/tls/server.pem"))
    }

    @Test("serve with GRONA_MOCK_TLS_PORT prints the http and then the https URL, and serves both")
    func serveBoth() throws {
        let home = Directory()
        #expect(try grona(["tls", "init"], environment: ["HOME": home.path]).status == 0)
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gronaMockExecutable)
        process.arguments = ["serve", "--port", "0", "--db", ":memory:"]
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": home.path, "GRONA_MOCK_TLS_PORT": "0"]
        process.currentDirectoryURL = repository
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        var text = ""
        let handle = output.fileHandleForReading
        _ = eventually(seconds: 10) {
            text += String(decoding: handle.availableData, as: UTF8.self)
            return text.components(separatedBy: "\n").count > 2
        }
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(text)")
        #expect(lines.first?.contains("listening on http://127.0.0.1:") == true)
        let https = lines.last?.components(separatedBy: "listening on ").last ?? ""
        #expect(https.hasPrefix("https://127.0.0.1:"))
        let curl = try runTool([
            "curl", "-sS", "--max-time", "10", "--cacert", home.path + "/.grona-mock/tls/ca.pem", "-o", "/dev/null",
            "-w",
            "%{http_code}", https.replacingOccurrences(of: "127.0.0.1", with: "localhost") + "/_mock/health",
        ])
        #expect(curl.output == "200", "\(curl.all)")
    }
}
