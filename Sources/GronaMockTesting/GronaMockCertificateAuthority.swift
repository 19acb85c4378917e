import Foundation
import GronaMockHTTP
import GronaMockTLS

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The certificate authority of a test server started with `Options(tls: true)`: made for that server alone,
/// in its temporary directory, and trusted by nothing but the sessions `makeURLSession` returns.
public final class GronaMockCertificateAuthority: Sendable {
    /// The CA certificate, PEM: for a client that takes the text (an `ssl` context, an OkHttp test).
    public let pem: String
    /// The same as a file, for tools that take a path (`curl --cacert`, Python's `cafile`).
    public let file: URL
    /// The CA certificate, DER (what `SecCertificateCreateWithData` takes).
    public let der: Data
    private let directory: TLSDirectory
    /// Opened once: the client context that verifies the mock's certificate against this CA only.
    let client: ClientTLSContext

    private init(directory: TLSDirectory) throws {
        self.directory = directory
        file = URL(fileURLWithPath: directory.authorityCertificate)
        pem = try String(contentsOf: file, encoding: .utf8)
        der = try Data(contentsOf: URL(fileURLWithPath: directory.authorityCertificateDER))
        client = try ClientTLSContext(caFile: directory.authorityCertificate)
    }

    /// A CA and a server certificate for 127.0.0.1, ::1 and localhost (not this machine's other names: a test
    /// never leaves loopback) in `temporary/tls`.
    static func throwaway(in temporary: URL) throws -> GronaMockCertificateAuthority {
        let directory = TLSDirectory(temporary.appendingPathComponent("tls").path)
        do {
            _ = try LocalAuthority.initialize(directory, names: [], machineNames: false)
            return try GronaMockCertificateAuthority(directory: directory)
        } catch {
            throw GronaMockTestError("cannot make the test server's certificate authority: \(error)")
        }
    }

    /// The HTTPS listener serving the server certificate, on a port the system picks.
    func listener() throws -> HTTPServer.Listener {
        do {
            let tls = try TLSListener(
                certificateFile: directory.serverCertificate, keyFile: directory.serverKey, logger: .silent)
            return .layered(port: 0, transport: tls)
        } catch {
            throw GronaMockTestError("cannot load the test server's certificate: \(error)")
        }
    }

    func register(for baseURL: URL) {
        #if canImport(FoundationNetworking)
        MockTLSURLProtocol.trust(self, for: baseURL)
        #endif
    }

    func unregister(for baseURL: URL) {
        #if canImport(FoundationNetworking)
        MockTLSURLProtocol.forget(baseURL)
        #endif
    }
}

extension GronaMockTestServer {
    /// A session that trusts this mock's CA, for the SDK under test: `configuration` with the trust added.
    ///
    /// On Apple platforms the session's delegate anchors the server trust to the CA alone
    /// (`SecTrustSetAnchorCertificates`), so the keychain is never touched. On Linux, FoundationNetworking runs
    /// on libcurl and offers no trust evaluation or CA setting at all (no `SecTrust`; libcurl's CA file is fixed
    /// at build time), so the configuration carries a `URLProtocol` that answers this mock's HTTPS URLs itself,
    /// over OpenSSL with the CA (HTTP/1.1, one connection per request), and leaves every other URL to libcurl.
    /// Without `tls`, the session is a plain one.
    public func makeURLSession(configuration: URLSessionConfiguration = .ephemeral) -> URLSession {
        #if canImport(FoundationNetworking)
        if certificateAuthority != nil {
            configuration.protocolClasses = [MockTLSURLProtocol.self] + (configuration.protocolClasses ?? [])
        }
        return URLSession(configuration: configuration)
        #elseif canImport(Security)
        guard let certificateAuthority else { return URLSession(configuration: configuration) }
        return URLSession(
            configuration: configuration, delegate: AnchoredTrust(der: certificateAuthority.der), delegateQueue: nil)
        #else
        return URLSession(configuration: configuration)
        #endif
    }
}

#if !canImport(FoundationNetworking) && canImport(Security)
import Security

/// Trusts a server whose chain ends at one CA, and only such a server (RFC 5280 path validation by the system,
/// host name included, with that CA as the only anchor).
final class AnchoredTrust: NSObject, URLSessionDelegate, Sendable {
    private let der: Data

    init(der: Data) { self.der = der }

    func urlSession(
        _ session: URLSession, didReceive challenge: URLAuthenticationChallenge
    ) async -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
            let trust = challenge.protectionSpace.serverTrust
        else { return (.performDefaultHandling, nil) }
        guard let anchor = SecCertificateCreateWithData(nil, der as CFData) else {
            return (.cancelAuthenticationChallenge, nil)
        }
        SecTrustSetAnchorCertificates(trust, [anchor] as CFArray)
        SecTrustSetAnchorCertificatesOnly(trust, true)
        guard SecTrustEvaluateWithError(trust, nil) else { return (.cancelAuthenticationChallenge, nil) }
        return (.useCredential, URLCredential(trust: trust))
    }
}
#endif
