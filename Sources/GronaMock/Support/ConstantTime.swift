/// Comparison whose time does not depend on where two byte strings first differ, so that timing the
/// grants endpoint cannot reveal a secret key a byte at a time.
enum ConstantTime {
    static func equals(_ lhs: some StringProtocol, _ rhs: some StringProtocol) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        // The length is not secret (keys are 8 to 200 characters); the content is.
        var difference = UInt8(truncatingIfNeeded: left.count ^ right.count)
        for index in 0..<max(left.count, right.count) {
            let a = index < left.count ? left[index] : 0
            let b = index < right.count ? right[index] : 0
            difference |= a ^ b
        }
        return difference == 0 && left.count == right.count
    }
}
