import Foundation
import GronaMockJSON
import GronaMockTestSupport

/// A Server-Sent Events reader over a raw connection, for `GET /_mock/events/live`: it parses what arrives
/// into events and comments, as a browser's `EventSource` would (WHATWG HTML §9.2.6).
final class LiveStreamClient {
    /// One dispatched event, or a comment line.
    struct Message: Equatable {
        var id: Int?
        var event: String?
        var data: String?
        var comment: String?

        var json: JSONValue? { data.flatMap { try? JSONParser().parse(Array($0.utf8)) } }
    }

    let client: RawClient
    let response: RawClient.Response
    /// Bytes read and not yet parsed, and how far they were searched for the end of a message.
    private var pending: [UInt8] = []
    private var searched = 0
    private(set) var ended = false

    /// Opens the stream; `query` without the `?`, `headers` as raw lines.
    init(port: Int, query: String = "", headers: [String] = [], token: String? = nil) throws {
        client = try RawClient(port: port)
        var head = "GET /_mock/events/live\(query.isEmpty ? "" : "?" + query) HTTP/1.1\r\nHost: x\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        for line in headers { head += line + "\r\n" }
        try client.send(head + "\r\n")
        // A stream is chunked, with no Content-Length: its chunks stay unread; an error's body is read whole.
        response = try client.readResponse()
    }

    /// Reads until `count` messages passing `wanted` have arrived (the read timeout is the deadline), and
    /// returns every message read, wanted or not.
    func read(until count: Int, _ wanted: (Message) -> Bool = { $0.data != nil }) throws -> [Message] {
        var messages: [Message] = []
        var found = 0
        while found < count {
            guard let chunk = try client.readChunk() else {
                ended = true
                return messages
            }
            pending += chunk
            var start = 0
            var index = max(0, searched - 1)
            while index + 1 < pending.count {
                if pending[index] == 0x0A && pending[index + 1] == 0x0A {
                    let message = Self.parse(String(decoding: pending[start..<index], as: UTF8.self)[...])
                    if wanted(message) { found += 1 }
                    messages.append(message)
                    start = index + 2
                    index = start
                } else {
                    index += 1
                }
            }
            pending.removeFirst(start)
            searched = pending.count
        }
        return messages
    }

    /// Reads the rest until the server ends the stream (its last chunk).
    func readToEnd() throws -> [Message] {
        try read(until: Int.max)
    }

    private static func parse(_ block: Substring) -> Message {
        var message = Message()
        for line in block.split(separator: "\n") {
            if line.hasPrefix(":") {
                message.comment = line.dropFirst().trimmingCharacters(in: .whitespaces)
            } else if let colon = line.firstIndex(of: ":") {
                let value = String(line[line.index(after: colon)...].drop { $0 == " " })
                switch line[..<colon] {
                case "id": message.id = Int(value)
                case "event": message.event = value
                case "data": message.data = (message.data.map { $0 + "\n" } ?? "") + value
                default: break
                }
            }
        }
        return message
    }
}
