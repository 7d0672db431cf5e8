/// Unwraps the board's 32-bit µs clock (wraps every 71.6 minutes) into a 64-bit
/// timeline, and turns 64-bit times back into the stamps the board compares
/// wrap-safely. Every board time the engine reads goes through `unwrap`, so the
/// reference always stays within ±35 minutes of what arrives.
public struct BoardClock: Sendable, Equatable {
    private var lastRaw: UInt32
    private var lastUnwrapped: Int64

    public init(anchor raw: UInt32) {
        lastRaw = raw
        lastUnwrapped = Int64(raw)
    }

    public mutating func unwrap(_ raw: UInt32) -> Int64 {
        let delta = Int64(Int32(bitPattern: raw &- lastRaw))
        let value = lastUnwrapped + delta
        if delta > 0 {
            lastRaw = raw
            lastUnwrapped = value
        }
        return value
    }

    /// The stamp for an unwrapped time.
    public static func stamp(_ time: Int64) -> UInt32 { UInt32(truncatingIfNeeded: time) }
}
