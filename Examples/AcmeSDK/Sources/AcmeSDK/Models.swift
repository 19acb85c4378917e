import Foundation

/// The SDK's own names, the ones an SDK typically has: grona-mock's test kit must not clash with them.
public struct Logger: Sendable {
    public let subsystem: String
    public init(subsystem: String) { self.subsystem = subsystem }
    public func log(_ message: String) {}
}

/// The workspace the SDK is configured for.
public struct Workspace: Sendable, Hashable {
    public let key: String
    public let baseURL: URL
    public init(key: String, baseURL: URL) {
        self.key = key
        self.baseURL = baseURL
    }
}

/// A campaign as the SDK reads it from the signed configuration's payload.
public struct Campaign: Sendable, Hashable, Decodable {
    public let id: String
    public let placement: String
    public let status: String?
}

/// The SDK's pinning: the SPKI SHA-256 pins it accepts for each key id. Common in an SDK that pins its TLS or
/// signing keys, and the name the test kit once exported itself ("ambiguous for type lookup", issue 31).
public struct CertificateAuthority: Sendable, Hashable {
    public let pins: [String: String]
    public init(pins: [String: String]) { self.pins = pins }
    public func accepts(keyID: String, spki: String) -> Bool { pins[keyID] == spki }
}
