import Foundation
import GronaMockHTTP
import GronaMockPlatform
import GronaMockTLS
import GronaMockTestSupport
import Testing

/// HTTPS as independent clients see it: curl, Python's `ssl` and `openssl s_client`, each with its own TLS
/// stack's checks (chain, host name, protocol, suites). Run on each poller backend.
@Suite("Independent TLS clients")
struct ExternalClientTests {
    @Test(
        "curl with the CA file and host name checking gets the answer, by name and by address",
        arguments: PollerBackend.allCases)
    func curlWithCA(backend: PollerBackend) throws {
        let certificates = try TestCertificates()
        try withLiveServer(try tlsConfiguration(backend, certificates)) { server in
            for host in ["localhost", "127.0.0.1"] {
                let run = try runTool([
                    "curl", "-sS", "--max-time", "10", "--cacert", certificates.caFile, "-w", "\n%{http_version}",
                    "https://\(host):\(server.tlsPort)/hello",
                ])
                #expect(run.status == 0, "\(run.all)")
                #expect(run.output == "{\"hello\":\"world\"}\n1.1")
            }
        }
    }

    @Test("Python's ssl with the CA file and check_hostname gets the answer over TLS 1.3 with ALPN http/1.1")
    func pythonWithCA() throws {
        let certificates = try TestCertificates()
        try withLiveServer(try tlsConfiguration(.platformDefault, certificates)) { server in
            let script = """
                import socket, ssl, sys
                context = ssl.create_default_context(cafile=sys.argv[1])
                assert context.check_hostname and context.verify_mode == ssl.CERT_REQUIRED
                context.set_alpn_protocols(["http/1.1"])
                with socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=10) as raw:
                    with context.wrap_socket(raw, server_hostname="localhost") as tls:
                        tls.sendall(b"GET /hello HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n")
                        data = b""
                        while chunk := tls.recv(65536):
                            data += chunk
                        print(tls.version(), tls.selected_alpn_protocol(), data.split(b"\\r\\n\\r\\n", 1)[1].decode())
                """
            let run = try runTool(["python3", "-c", script, certificates.caFile, String(server.tlsPort)])
            #expect(run.status == 0, "\(run.all)")
            #expect(run.output == "TLSv1.3 http/1.1 {\"hello\":\"world\"}\n")
        }
    }

    @Test("a client that offers only protocols other than http/1.1 gets the no_application_protocol alert")
    func alpnWithoutHTTP11Refused() throws {
        let certificates = try TestCertificates()
        try withLiveServer(try tlsConfiguration(.platformDefault, certificates)) { server in
            // RFC 7301 §3.2: a server that supports none of the protocols offered SHALL answer with a fatal
            // no_application_protocol alert. A client that offers http/1.1 among others gets it.
            let script = """
                import socket, ssl, sys
                for offer in (["h2"], ["h2", "http/1.1"]):
                    context = ssl.create_default_context(cafile=sys.argv[1])
                    context.set_alpn_protocols(offer)
                    try:
                        with socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=10) as raw:
                            with context.wrap_socket(raw, server_hostname="localhost") as tls:
                                print(",".join(offer), "accepted", tls.selected_alpn_protocol())
                    except ssl.SSLError as error:
                        # The alert as OpenSSL names it: "tlsv1 alert no application protocol".
                        print(",".join(offer), "refused", "alert no application protocol" in str(error))
                """
            let run = try runTool(["python3", "-c", script, certificates.caFile, String(server.tlsPort)])
            #expect(run.output == "h2 refused True\nh2,http/1.1 accepted http/1.1\n", "\(run.all)")
        }
    }

    @Test("clients that trust another CA refuse the certificate: curl, Python, and the Swift client")
    func anotherCARefused() throws {
        let certificates = try TestCertificates()
        let stranger = try otherAuthority()
        try withLiveServer(try tlsConfiguration(.platformDefault, certificates)) { server in
            let curl = try runTool([
                "curl", "-sS", "--max-time", "10", "--cacert", stranger.caFile,
                "https://localhost:\(server.tlsPort)/hello",
            ])
            // 60: the peer certificate cannot be authenticated with the known CA certificates.
            #expect(curl.status == 60, "\(curl.all)")
            let script = """
                import socket, ssl, sys
                context = ssl.create_default_context(cafile=sys.argv[1])
                try:
                    with socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=10) as raw:
                        context.wrap_socket(raw, server_hostname="localhost")
                    print("accepted")
                except ssl.SSLCertVerificationError as error:
                    print("refused", error.verify_message)
                """
            let python = try runTool(["python3", "-c", script, stranger.caFile, String(server.tlsPort)])
            #expect(python.output.hasPrefix("refused"), "\(python.all)")
            #expect(throws: (any Error).self) { try RawClient(port: server.tlsPort, tls: stranger.client) }
        }
    }

    @Test("a name the certificate does not carry is refused by host name checking")
    func wrongHostRefused() throws {
        let certificates = try TestCertificates()
        try withLiveServer(try tlsConfiguration(.platformDefault, certificates)) { server in
            let run = try runTool([
                "curl", "-sS", "--max-time", "10", "--cacert", certificates.caFile, "--resolve",
                "grona.example:\(server.tlsPort):127.0.0.1", "https://grona.example:\(server.tlsPort)/hello",
            ])
            // 60 with "no alternative certificate subject name matches".
            #expect(run.status == 60, "\(run.all)")
            #expect(run.error.contains("subject"), "\(run.all)")
        }
    }

    @Test(
        "openssl s_client negotiates TLS 1.3, ALPN http/1.1, and shows the chain: the server, then the CA",
        arguments: PollerBackend.allCases)
    func sClientShowsTLS13AndChain(backend: PollerBackend) throws {
        let certificates = try TestCertificates()
        try withLiveServer(try tlsConfiguration(backend, certificates)) { server in
            let run = try runTool(
                [
                    "openssl", "s_client", "-connect", "127.0.0.1:\(server.tlsPort)", "-CAfile", certificates.caFile,
                    "-verify_hostname", "localhost", "-verify_return_error", "-alpn", "http/1.1", "-showcerts",
                    "-ign_eof",
                ], input: "GET /hello HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            #expect(run.status == 0, "\(run.all)")
            #expect(run.all.contains("depth=1 O = grona-mock local development, CN = grona-mock local CA"))
            #expect(run.all.contains("depth=0 O = grona-mock local development, CN = localhost"))
            #expect(run.output.contains("Protocol  : TLSv1.3") || run.output.contains("New, TLSv1.3"))
            #expect(run.output.contains("ALPN protocol: http/1.1"))
            #expect(run.output.contains("Verify return code: 0 (ok)"))
            #expect(run.output.contains("{\"hello\":\"world\"}"))
        }
    }

    @Test("sessions resume by ticket, in TLS 1.3 and 1.2", arguments: ["-tls1_3", "-tls1_2"])
    func resumption(option: String) throws {
        let certificates = try TestCertificates()
        let session = certificates.root.appendingPathComponent("session.pem").path
        try withLiveServer(try tlsConfiguration(.platformDefault, certificates)) { server in
            let address = "127.0.0.1:\(server.tlsPort)"
            // -ign_eof: the first client stays until the server closes (its header timeout), so that the
            // tickets sent after a TLS 1.3 handshake are read and saved.
            let first = try runTool([
                "openssl", "s_client", "-connect", address, option, "-CAfile", certificates.caFile, "-sess_out",
                session,
                "-ign_eof",
            ])
            #expect(first.output.contains("New, TLSv1."), "\(first.all)")
            let second = try runTool([
                "openssl", "s_client", "-connect", address, option, "-CAfile", certificates.caFile, "-sess_in", session,
            ])
            #expect(second.output.contains("Reused, TLSv1."), "\(second.all)")
        }
    }

    /// The client is made to offer the old protocol (SECLEVEL=0 lets Debian's OpenSSL send a TLS 1.0 or 1.1
    /// ClientHello at all), so a failure can only be the server's: its `protocol_version` alert (RFC 8446
    /// §6.2, alert 70) is what the client reports.
    @Test(
        "TLS 1.0 and 1.1 are refused by the server with a protocol_version alert",
        arguments: ["-tls1", "-tls1_1"])
    func oldProtocolsRefused(option: String) throws {
        let certificates = try TestCertificates()
        try withLiveServer(try tlsConfiguration(.platformDefault, certificates)) { server in
            let run = try runTool([
                "openssl", "s_client", "-connect", "127.0.0.1:\(server.tlsPort)", option, "-cipher",
                "DEFAULT@SECLEVEL=0",
            ])
            #expect(run.status != 0)
            #expect(run.all.contains("alert protocol version"), "\(run.all)")
            #expect(!run.all.contains("no protocols available"), "the client did not offer it: \(run.all)")
        }
    }

    @Test("a TLS 1.2 client offering only a suite without ECDHE is refused with a handshake_failure alert")
    func nonECDHESuiteRefused() throws {
        let certificates = try TestCertificates()
        try withLiveServer(try tlsConfiguration(.platformDefault, certificates)) { server in
            let run = try runTool([
                "openssl", "s_client", "-connect", "127.0.0.1:\(server.tlsPort)", "-tls1_2", "-cipher",
                "AES128-GCM-SHA256",
            ])
            #expect(run.status != 0)
            // Alert 40, sent by the server: the client offered the suite and heard the refusal.
            #expect(run.all.contains("alert handshake failure"), "\(run.all)")
            // The same client with an ECDHE suite is served.
            let ecdhe = try runTool(
                [
                    "openssl", "s_client", "-connect", "127.0.0.1:\(server.tlsPort)", "-tls1_2", "-cipher",
                    "ECDHE-ECDSA-AES128-GCM-SHA256", "-CAfile", certificates.caFile,
                ], input: "")
            #expect(ecdhe.output.contains("Cipher is ECDHE-ECDSA-AES128-GCM-SHA256"), "\(ecdhe.all)")
        }
    }
}
