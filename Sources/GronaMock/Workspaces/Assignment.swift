/// Deterministic assignment, shared with the SDK (contract §5): the same salt and unit always land in the
/// same bucket, on the device and here, so the mock issues grants for exactly the variants the SDK shows.
package enum Assignment {
    /// `UInt64 big-endian of the first 8 bytes of SHA-256(UTF-8(salt + "." + unit)) mod 10000`.
    package static func bucket(salt: String, unit: String) -> Int {
        let digest = SHA256.hash(salt + "." + unit)
        let prefix = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int(prefix % 10_000)
    }

    /// Whether `unit` is in the workspace-wide holdout: nothing shown, events say `"arm": "holdout"`.
    package static func isHeldOut(_ unit: String, by holdout: Holdout?) -> Bool {
        guard let holdout else { return false }
        return Int64(bucket(salt: holdout.salt, unit: unit)) < holdout.weight
    }

    /// The first variant whose running weight sum exceeds the unit's bucket; nil only when the weights do
    /// not reach the bucket (a workspace served deliberately invalid).
    package static func variant(of campaign: Campaign, for unit: String) -> Variant? {
        let bucket = Int64(bucket(salt: campaign.salt, unit: unit))
        var sum: Int64 = 0
        for variant in campaign.variants {
            sum += variant.weight
            if sum > bucket { return variant }
        }
        return nil
    }
}
