/// Who a request belongs to, so that its answer finds its way back: the endpoint it counts under (nil for the
/// run's own calls: the JWKS, `--verify`'s `/_mock` pages), the install that sent it, and whether it is a retry.
package struct RequestTag: Sendable, Equatable {
    package var endpoint: LoadEndpoint?
    package var owner: Int
    package var isRetry: Bool

    package init(endpoint: LoadEndpoint?, owner: Int = -1, isRetry: Bool = false) {
        self.endpoint = endpoint
        self.owner = owner
        self.isRetry = isRetry
    }
}

/// One request ready for the wire: its bytes (head and body, built once by the caller), and the time it was
/// due, from which its latency counts (the open model: a request that waited for a connection, or for a stalled
/// loop, waited on the clock).
package struct ClientRequest: Sendable {
    package var tag: RequestTag
    package var bytes: [UInt8]
    /// `MonotonicClock` nanoseconds.
    package var intendedStart: UInt64
    /// When the generator handed it to the client (`MonotonicClock` nanoseconds, set by `submitNow`): how late
    /// that was is the generator's own lag, which the latency from `intendedStart` includes.
    package var submittedAt: UInt64 = 0
    /// The most body bytes its answer may have (`AnswerLimit`): by its endpoint, or the run's own pages' limit.
    package var answerLimit: Int

    package init(tag: RequestTag, bytes: [UInt8], intendedStart: UInt64, answerLimit: Int? = nil) {
        self.tag = tag
        self.bytes = bytes
        self.intendedStart = intendedStart
        self.answerLimit = answerLimit ?? tag.endpoint.map(AnswerLimit.bytes(for:)) ?? AnswerLimit.inspection
    }

    /// `METHOD path HTTP/1.1` with `Host`, the given fields and `Content-Length`, then the body.
    package init(
        tag: RequestTag, method: String, path: String, host: String, headers: [(String, String)] = [],
        body: [UInt8] = [], intendedStart: UInt64, answerLimit: Int? = nil
    ) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(160 + path.utf8.count + body.count)
        bytes += method.utf8
        bytes.append(0x20)
        bytes += path.utf8
        bytes += " HTTP/1.1\r\nHost: ".utf8
        bytes += host.utf8
        for (name, value) in headers {
            bytes += "\r\n".utf8
            bytes += name.utf8
            bytes += ": ".utf8
            bytes += value.utf8
        }
        if !body.isEmpty || method == "POST" {
            bytes += "\r\nContent-Length: ".utf8
            bytes += String(body.count).utf8
        }
        bytes += "\r\n\r\n".utf8
        bytes += body
        self.init(tag: tag, bytes: bytes, intendedStart: intendedStart, answerLimit: answerLimit)
    }
}

/// How a request ended: an answer, or a transport failure.
package struct ClientCompletion: Sendable {
    package enum Outcome: Sendable {
        case response(HTTPResponseHead, body: [UInt8])
        case failure(EndpointStatistics.TransportFailure)
    }

    package var tag: RequestTag
    package var intendedStart: UInt64
    package var submittedAt: UInt64 = 0
    package var finishedAt: UInt64
    /// How long the answer waited, arrived, before the generator woke to read it (0 without the kernel's
    /// receive stamps): the generator's delay after the answer, as `startLagNanoseconds` is before the request.
    package var answerLagNanoseconds: UInt64 = 0
    package var outcome: Outcome

    /// From the intended start to the end, never negative.
    package var latencyNanoseconds: UInt64 { finishedAt >= intendedStart ? finishedAt - intendedStart : 0 }

    /// From the intended start to the hand-over to the client, never negative: the part of the latency the
    /// generator itself added before sending, by being busy or off its core when the request was due. (An
    /// answer it reads late adds to the latency too, and is not in this figure.)
    package var startLagNanoseconds: UInt64 { submittedAt >= intendedStart ? submittedAt - intendedStart : 0 }

    package var status: Int? {
        if case .response(let head, _) = outcome { return head.status }
        return nil
    }
}
