import GronaMockCZlib

/// gzip (RFC 1952) through zlib. Every zlib call lives in this file.
package enum Gzip {
    /// Why a gzip body could not be inflated.
    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The inflated size passed `limit`; inflation stopped there, so a bomb costs at most `limit` bytes.
        case tooLarge(limit: Int)
        /// Not gzip, corrupt, or cut short.
        case malformed(String)

        package var description: String {
            switch self {
            case .tooLarge(let limit): "the body inflates to more than \(limit) bytes"
            case .malformed(let reason): "the body is not valid gzip: \(reason)"
            }
        }
    }

    /// Deflates `bytes` into one gzip member (level 6, zlib's default balance of size and speed).
    package static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
        var stream = z_stream()
        guard grona_deflate_init_gzip(&stream, level) == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(bytes.count))) + 32)
        let produced = bytes.withUnsafeBufferPointer { input -> Int in
            output.withUnsafeMutableBufferPointer { buffer -> Int in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = UInt32(input.count)
                stream.next_out = buffer.baseAddress
                stream.avail_out = UInt32(buffer.count)
                guard deflate(&stream, Z_FINISH) == Z_STREAM_END else { return -1 }
                return buffer.count - Int(stream.avail_out)
            }
        }
        return produced < 0 ? [] : Array(output.prefix(produced))
    }

    /// Inflates a gzip body, stopping with `.tooLarge` as soon as the output passes `limit` bytes.
    /// Concatenated members (RFC 1952 §2.2) are inflated in turn; trailing garbage is refused.
    package static func decompress(_ bytes: [UInt8], limit: Int) throws(Failure) -> [UInt8] {
        var output: [UInt8] = []
        var offset = 0
        repeat {
            offset += try inflateMember(bytes, from: offset, into: &output, limit: limit)
        } while offset < bytes.count
        return output
    }

    /// Inflates one member starting at `start`, returning how many input bytes it used.
    private static func inflateMember(
        _ bytes: [UInt8], from start: Int, into output: inout [UInt8], limit: Int
    ) throws(Failure) -> Int {
        var stream = z_stream()
        guard grona_inflate_init_gzip(&stream) == Z_OK else { throw .malformed("zlib could not start") }
        defer { inflateEnd(&stream) }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let result: Result<Int, Failure> = bytes.withUnsafeBufferPointer { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress.map { $0 + start })
            stream.avail_in = UInt32(input.count - start)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { buffer -> (Int32, Int) in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = UInt32(buffer.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    return (status, buffer.count - Int(stream.avail_out))
                }
                if output.count + produced > limit { return .failure(.tooLarge(limit: limit)) }
                output += chunk[..<produced]
                switch status {
                case Z_STREAM_END:
                    return .success(input.count - start - Int(stream.avail_in))
                case Z_OK:
                    continue
                case Z_BUF_ERROR where stream.avail_in == 0:
                    return .failure(.malformed("the body ends before the gzip stream does"))
                default:
                    let message = stream.msg.map { String(cString: $0) } ?? "zlib status \(status)"
                    return .failure(.malformed(message))
                }
            }
        }
        return try result.get()
    }

    /// The linked zlib's version, for `--version`.
    package static var libraryVersion: String { String(cString: zlibVersion()) }
}
