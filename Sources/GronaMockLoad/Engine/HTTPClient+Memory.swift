import GronaMockPlatform

/// How `HTTPClient` keeps its connections' answers within its `AnswerMemory`: a connection reads no more than
/// its answer's grant leaves, asks for more when it is spent, and stops reading while it waits for it.
extension HTTPClient {
    /// The bytes `connection` may read now, at most a buffer: what its grant leaves. Its answer's first read
    /// takes a small grant, and a read that finds it spent grows it to the answer's ceiling. Nil when it may
    /// not read now: it waits for memory (and stops reading until `admitWaiting` serves it), or its answer
    /// passed what it may keep (then it has failed as too large).
    func readRoom(_ connection: ClientConnection) -> Int? {
        switch connection.grant {
        case .waitingToStart, .waitingToGrow:
            return nil
        case .none:
            guard memory.start(&connection.grant, slot: connection.slot) else {
                pauseReading(connection)
                return nil
            }
        case .small, .whole:
            break
        }
        let room = connection.grant.bytes - connection.held
        if room > 0 { return min(room, scratch.count) }
        let ceiling = connection.ceiling
        guard connection.grant == .small, ceiling > AnswerMemory.smallGrant else {
            perform(connection.state.answerTooLarge(), on: connection)
            return nil
        }
        guard memory.grow(&connection.grant, to: ceiling, slot: connection.slot) else {
            pauseReading(connection)
            return nil
        }
        grew(connection)
        return readRoom(connection)
    }

    /// After a read that did not end the answer: a small grant whose answer keeps nothing yet goes back (a
    /// head read whole, a body not begun), and a whole grant shrinks to a length now known.
    func settleGrant(_ connection: ClientConnection) {
        guard connection.fd >= 0, connection.state.carriesRequest else { return }
        switch connection.grant {
        case .small where connection.held == 0:
            memory.release(&connection.grant)
        case .whole:
            if case .fixedBody = connection.parser.state {
                memory.shrink(&connection.grant, to: connection.ceiling)
            }
        default:
            break
        }
    }

    /// The answer ended. A delivered body stays counted (`delivered` bytes) until the turn's completions are
    /// handled, since it is alive until then; the rest of the grant is free at once.
    func releaseGrant(_ connection: ClientConnection, delivered: Int = 0) {
        memory.release(&connection.grant, delivered: delivered)
    }

    /// At the end of a turn, once its completions are handled: their bodies' bytes are free, and the
    /// connections waiting for memory are served in order while what they ask for fits, and read again.
    func admitWaiting() {
        memory.releaseDelivered()
        while let slot = memory.nextGrowing() {
            let connection = connections[slot]
            guard connection.fd >= 0, case .waitingToGrow(let bytes) = connection.grant else { continue }
            guard memory.grow(&connection.grant, to: bytes, slot: slot) else {
                // The oldest waits on: the others do not pass it, or a large answer would wait for ever.
                memory.keepGrowing(slot)
                break
            }
            grew(connection)
            resumeReading(connection)
        }
        while let slot = memory.nextStarting() {
            let connection = connections[slot]
            guard connection.fd >= 0, connection.grant == .waitingToStart else { continue }
            guard memory.start(&connection.grant, slot: slot) else {
                memory.keepStarting(slot)
                break
            }
            resumeReading(connection)
        }
        memory.prune(limit: 2 * connections.count + 16) { slot in connections[slot].grant.isWaiting }
    }

    /// A grant grew: room for the body is made at once, once the head says how the body is framed.
    private func grew(_ connection: ClientConnection) {
        switch connection.parser.state {
        case .head, .complete: break
        default: connection.parser.reserveBody(connection.grant.bytes)
        }
    }

    private func pauseReading(_ connection: ClientConnection) {
        setInterest(connection, connection.interest.subtracting(.read))
    }

    private func resumeReading(_ connection: ClientConnection) {
        setInterest(connection, connection.state.state == .sending ? [.read, .write] : .read)
        noteBufferedTLS(connection)
    }
}
