import DRV2605Model

extension DRV2605Chip {
    /// The chip and its physics brought to `target` µs (never back), with the sensor on
    /// its sled, if any, sampling on the way: each sample at its own moment, the physics
    /// brought there first. The one way both backings of the sensor move time (the
    /// simulated board, and the ELF under simavr through `HarnessChip`).
    public func advance(toMicroseconds target: UInt64, sampledBy sensor: LIS3DHChip?) {
        if let sensor {
            sensor.advance(toMicroseconds: target) { at in
                advance(toMicroseconds: at)
                return accelerationG
            }
        }
        advance(toMicroseconds: target)
    }
}
