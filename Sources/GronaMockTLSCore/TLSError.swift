import GronaMockCOpenSSL

/// A failed libssl or libcrypto operation, with OpenSSL's first reason. Never carries key material.
package struct TLSError: Error, Sendable, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }

    /// A blocking client's read or handshake that gave up at its socket's timeout.
    package var isTimeout: Bool { description.hasSuffix("timed out") }

    /// What OpenSSL queued for `operation`, taking its whole queue so that one failure is never reported
    /// against the next call.
    package static func openSSL(_ operation: String) -> TLSError {
        var first: String?
        while case let code = ERR_get_error(), code != 0 {
            guard first == nil else { continue }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            first = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return TLSError(first.map { "\(operation) failed: \($0)" } ?? "\(operation) failed")
    }
}
