import GronaMock
import Testing

@testable import GronaMockLoad

/// The configurations the fleet keeps, against a service that signs afresh on every request (ECDSA signatures
/// differ each time) or stamps `issuedAt` with the time of the request: a run of a million polls must not keep
/// a million copies of one configuration.
@Suite struct ConfigStoreHardeningTests {
    let key: P256SigningKey
    let store: ConfigStore

    init() throws {
        key = try P256SigningKey.generate()
        store = ConfigStore(keys: ["k1": key.publicKey], workspace: "w")
    }

    func signed(revision: Int64, issuedAt: Int64 = 1_800_000_000) throws -> [UInt8] {
        let payload =
            "{\"schemaVersion\":1,\"workspaceKey\":\"w\",\"revision\":\(revision),\"issuedAt\":\(issuedAt),"
            + "\"campaigns\":[]}"
        return try JWSSigner.general(
            payload: Array(payload.utf8), type: .configuration, signers: [NamedSigningKey(kid: "k1", key: key)])
    }

    @Test func oneConfigurationSignedAfreshOnEveryAnswerIsKeptOnce() throws {
        // ECDSA draws a nonce per signature: the same payload signed twice is two bodies.
        #expect(try signed(revision: 3) != signed(revision: 3))
        var store = self.store
        var indices: Set<Int> = []
        for poll in 0..<20 {
            let body = try signed(revision: 3)
            indices.insert(try store.accept(body, etag: poll.isMultiple(of: 2) ? "\"r3\"" : nil).get())
        }
        #expect(indices.count == 1)
        #expect(store.configs.count == 1)
    }

    @Test func anIssuedAtStampedPerRequestIsTheSameConfiguration() throws {
        var store = self.store
        for second in 0..<20 {
            _ = try store.accept(try signed(revision: 3, issuedAt: 1_800_000_000 + Int64(second)), etag: nil).get()
        }
        #expect(store.configs.count == 1)
    }

    /// A service that bumps the revision on every answer: a configuration no install holds any more gives its
    /// place to the next, so the store is bounded by what the installs hold.
    @Test func configurationsNoInstallHoldsAreReplaced() throws {
        var store = self.store
        let first = try store.accept(try signed(revision: 1), etag: nil).get()
        store.hold(first)
        var held = first
        for revision in 2...200 {
            let received = try store.accept(try signed(revision: Int64(revision)), etag: "\"r\(revision)\"").get()
            store.hold(received)
            store.release(held)
            held = received
            #expect(store.configs[held].revision == Int64(revision))
        }
        #expect(store.configs.count <= ConfigStore.spareSlots + 2)
        // The held one is found again by its ETag and bytes.
        #expect(store.configs[held].revision == 200)
    }
}
