/// Assignment, shared with the platform (contract §5): SHA-256 buckets out of 10,000, holdout first, then the
/// variant.
public enum Assignment {
    /// `UInt64` big-endian of the first 8 bytes of SHA-256(UTF-8(salt + "." + unit)), mod 10,000.
    public static func bucket(salt: String, unit: String) -> Int64 {
        let digest = SHA256.hash(Array((salt + "." + unit).utf8))
        let prefix = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int64(prefix % 10_000)
    }

    /// Whether the unit is in the workspace-wide holdout: `bucket(holdout.salt, unit) < holdout.weight`.
    public static func isHeldOut(_ unit: String, by holdout: Configuration.Holdout?) -> Bool {
        guard let holdout else { return false }
        return bucket(salt: holdout.salt, unit: unit) < holdout.weight
    }

    /// The first variant whose running sum of weights exceeds the unit's bucket; nil when the weights do not
    /// reach it (a configuration whose weights sum to less than 10,000).
    public static func variant(of campaign: Campaign, for unit: String) -> Variant? {
        let bucket = bucket(salt: campaign.salt, unit: unit)
        var sum: Int64 = 0
        for variant in campaign.variants {
            sum += variant.weight
            if sum > bucket { return variant }
        }
        return nil
    }
}
