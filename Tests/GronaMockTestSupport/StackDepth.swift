/// The address of a local variable in a frame called from here: where the stack stands. Two calls from the same
/// place answer the same address, unless more frames lie between; the stack grows down, so a lower address
/// means a deeper call. Tests use it to see that a stored closure is not wrapped in more thunks each time it is
/// read (`LiveFeed`, `HTTPBodyStream`).
@inline(never)
public func currentStackAddress() -> UInt {
    var marker: UInt8 = 0
    return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
}
