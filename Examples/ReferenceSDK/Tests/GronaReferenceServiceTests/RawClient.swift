import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A raw TCP client for the server tests: sends exact bytes and reads whatever comes back until the server
/// closes (the server closes after every answer).
struct RawClient {
    let descriptor: Int32

    init(port: UInt16) throws {
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            systemClose(descriptor)
            throw RawClientError.connect
        }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    enum RawClientError: Error {
        case connect
    }

    /// Sends the bytes; false if the server already closed (a refused oversized body may do that).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)
            #else
            let flags: Int32 = 0
            #endif
            let count = bytes.withUnsafeBytes {
                systemSend(descriptor, $0.baseAddress.map { $0 + offset }, bytes.count - offset, flags)
            }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    func shutdownWrite() { shutdown(descriptor, Int32(SHUT_WR)) }

    /// What one read returns (at least a byte, unless the server closed).
    func readSome() -> String {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        return String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
    }

    /// Everything until the server closes (or 20 s pass).
    func readAll() -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received.append(contentsOf: buffer.prefix(count))
        }
        return String(decoding: received, as: UTF8.self)
    }

    func close() { systemClose(descriptor) }

    /// The status code of a response's first line, or nil.
    static func status(_ response: String) -> Int? {
        let parts = response.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2 else { return nil }
        return Int(parts[1])
    }

    /// One request on a fresh connection; the whole response.
    static func exchange(_ port: UInt16, _ request: String) throws -> String {
        let client = try RawClient(port: port)
        defer { client.close() }
        client.send(request)
        return client.readAll()
    }
}

private func systemSend(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ length: Int, _ flags: Int32) -> Int {
    send(descriptor, buffer, length, flags)
}

private func systemClose(_ descriptor: Int32) {
    close(descriptor)
}
