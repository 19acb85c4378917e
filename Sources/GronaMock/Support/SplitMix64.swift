/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014; Vigna's
/// reference `splitmix64.c`): the generator behind probabilistic fault rules and `grona-mock load`'s fleet.
/// It is fixed, so that a seed gives the same fires and the same visits on every machine and in every
/// version, and anyone can predict the fires offline. Not for anything secret.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    package private(set) var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Whether a draw fires at `probability`: its top 53 bits, as a fraction of 2^53, fall below it. So 0
    /// never fires and 1 always does.
    package static func fires(_ draw: UInt64, probability: Double) -> Bool {
        Double(draw >> 11) * 0x1p-53 < probability
    }

    /// A double in [0, 1) from the top 53 bits.
    package mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// True with probability `p`.
    package mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// An integer in 0..<bound (0 when bound is not positive), by Lemire's multiply-shift (bias below 2^-32 for
    /// the bounds used here).
    package mutating func below(_ bound: Int) -> Int {
        guard bound > 1 else { return 0 }
        return Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }
}
