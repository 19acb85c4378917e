import GronaReferenceCZlib

/// gzip (RFC 1952) through the system's zlib: event batches go compressed when `events.gzip` asks (contract §7
/// accepts `Content-Encoding: gzip`), and a configuration that arrives still compressed is inflated.
public enum Gzip {
    public static func compress(_ input: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        guard grona_reference_deflate_init_gzip(&stream, Z_DEFAULT_COMPRESSION) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var source = input
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 32)
        let status = source.withUnsafeMutableBufferPointer { sourceBuffer in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = sourceBuffer.baseAddress
                stream.avail_in = uInt(sourceBuffer.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        return Array(output.prefix(Int(stream.total_out)))
    }

    /// The inflated bytes of one gzip member, or nil when the input is not gzip, is cut short, or inflates past
    /// `limit` (a small body must not become gigabytes).
    public static func decompress(_ input: [UInt8], limit: Int = 16 << 20) -> [UInt8]? {
        var stream = z_stream()
        guard grona_reference_inflate_init_gzip(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var source = input
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        return source.withUnsafeMutableBufferPointer { sourceBuffer -> [UInt8]? in
            stream.next_in = sourceBuffer.baseAddress
            stream.avail_in = uInt(sourceBuffer.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { target -> (Int32, Int) in
                    stream.next_out = target.baseAddress
                    stream.avail_out = uInt(target.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    return (status, target.count - Int(stream.avail_out))
                }
                output.append(contentsOf: chunk.prefix(produced))
                guard output.count <= limit else { return nil }
                switch status {
                case Z_STREAM_END: return stream.avail_in == 0 ? output : nil
                case Z_OK: continue
                default: return nil  // Z_BUF_ERROR (cut short), Z_DATA_ERROR, ...
                }
            }
        }
    }

    public static func isGzip(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    }
}
