#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Equality of ids as the stores see them: the same bytes. Swift's `==` on `String` equates text written with
/// a precomposed letter and with a combining mark (`é` and `e` + U+0301); SQLite and PostgreSQL order and group
/// the two apart, and so does a sort on disk (`ExternalSort`). The violation check groups a visit's events
/// with this, so that a visit judged in memory and one judged on disk agree on any bytes a client sends.
enum ExactText {
    static func equal(_ left: String, _ right: String) -> Bool {
        // The scan shares one string between a visit's events, so most strings compared are the same value: the
        // same storage, or the same inline bytes of a small string. Their two words say so without a call.
        if unsafeBitCast(left, to: (UInt64, UInt64).self) == unsafeBitCast(right, to: (UInt64, UInt64).self) {
            return true
        }
        let compared = left.utf8.withContiguousStorageIfAvailable { mine in
            right.utf8.withContiguousStorageIfAvailable { theirs in
                guard mine.count == theirs.count else { return false }
                guard let mineBase = mine.baseAddress, let theirsBase = theirs.baseAddress, mineBase != theirsBase
                else { return true }
                return memcmp(mineBase, theirsBase, mine.count) == 0
            }
        }
        return (compared ?? nil) ?? left.utf8.elementsEqual(right.utf8)
    }

    static func equal(_ left: String?, _ right: String?) -> Bool {
        switch (left, right) {
        case (nil, nil): true
        case (let left?, let right?): equal(left, right)
        default: false
        }
    }
}
