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
