import GronaMockTLS

/// What `grona-mock tls trust` prints: the steps, per platform, to make a client trust the local CA. The same
/// steps, with the reasons, are in docs/tls.md.
enum TrustSteps {
    static func text(directory: TLSDirectory, fingerprint: String) -> String {
        let pem = directory.authorityCertificate
        let der = directory.authorityCertificateDER
        return """
            The local CA, exported:
              PEM  \(pem)
              DER  \(der)
              SHA-256 fingerprint  \(fingerprint)
            Trust the CA certificate (never the key, \(directory.authorityKey), which stays on this machine).

            macOS (Safari, curl from Homebrew, URLSession in apps and tests):
              security add-trusted-cert -r trustRoot -k ~/Library/Keychains/login.keychain-db \(pem)
              (for every user: sudo security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain \(pem))

            iOS simulator (booted; Xcode 11.4 or later):
              xcrun simctl keychain booted add-root-cert \(pem)

            iOS or iPadOS device:
              1. Send \(der) to the device (AirDrop, Mail, or a web page) and open it: "Profile Downloaded".
              2. Settings > General > VPN & Device Management: install the profile.
              3. Settings > General > About > Certificate Trust Settings: turn on full trust for "grona-mock local CA".
              Use the machine's LAN address or host name from 'grona-mock tls init', e.g. https://192.168.1.20:8443.

            Android emulator (the host is https://10.0.2.2:8443):
              Either ship the CA in the debug build only, with no device set-up:
                cp \(pem) app/src/debug/res/raw/grona_mock_ca.pem
                app/src/debug/res/xml/network_security_config.xml:
                  <network-security-config>
                    <debug-overrides><trust-anchors>
                      <certificates src="@raw/grona_mock_ca"/>
                    </trust-anchors></debug-overrides>
                  </network-security-config>
              or install it as a user CA and let debug builds trust user CAs:
                adb push \(der) /sdcard/Download/grona-mock-ca.crt
                Settings > Security > Encryption & credentials > Install a certificate > CA certificate
                  <debug-overrides><trust-anchors><certificates src="user"/></trust-anchors></debug-overrides>
              In the manifest: <application android:networkSecurityConfig="@xml/network_security_config" ...>

            Linux, the system store (Debian, Ubuntu: curl and other OpenSSL clients; the name must end in .crt):
              sudo cp \(pem) /usr/local/share/ca-certificates/grona-mock-local-ca.crt
              sudo update-ca-certificates
              undo: sudo rm /usr/local/share/ca-certificates/grona-mock-local-ca.crt
                    sudo update-ca-certificates --fresh
              (Fedora, RHEL: sudo cp \(pem) /etc/pki/ca-trust/source/anchors/ && sudo update-ca-trust)

            Chromium and Chrome on Linux (their own NSS store, per user; certutil is in libnss3-tools):
              mkdir -p ~/.pki/nssdb
              certutil -d sql:$HOME/.pki/nssdb -N --empty-password    (only if it holds no cert9.db yet)
              certutil -d sql:$HOME/.pki/nssdb -A -t "C,," -n "grona-mock local CA" -i \(pem)
              undo: certutil -d sql:$HOME/.pki/nssdb -D -n "grona-mock local CA"; then restart the browser.

            curl:
              curl --cacert \(pem) https://localhost:8443/_mock/health

            URLSession, without touching the keychain (tests): GronaMockTestServer.start(.init(tls: true)) gives
            a session that trusts its own throwaway CA; for this CA, anchor the server trust to it in
            urlSession(_:didReceive:completionHandler:) with SecTrustSetAnchorCertificates (docs/tls.md).

            Python: requests.get(url, verify="\(pem)"), or ssl.create_default_context(cafile="\(pem)").
            """
    }
}
