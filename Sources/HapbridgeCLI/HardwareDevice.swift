import DeviceInterface
import Actuators
import DRV2605
import DRV2605Model

/// The device a hardware command (`calibrate`, `diagnose`, `rom`) talks to. The
/// commands are written against this protocol and the driver's `I2CBus`, so a
/// transport (bridge board, FT232H) adds a conforming type and nothing else changes.
/// Today the simulated chip is the only one.
public protocol HardwareDevice: AnyObject {
    associatedtype Bus: I2CBus
    var bus: Bus { get }
    /// One line for the report, e.g. "simulated DRV2605L (chip model, virtual time)".
    var summary: String { get }
    /// Acceleration the device simulated or measured, if it can (nil: no accelerometer).
    func acceleration() -> AccelerationTrace?
    /// Forgets the acceleration recorded so far.
    func clearAcceleration()
}

/// Acceleration over time, as a command plots and summarises it.
public struct AccelerationTrace: Sendable, Equatable {
    public var timeMilliseconds: [Double]
    public var accelerationG: [Double]

    public var peakG: Double { accelerationG.map(abs).max() ?? 0 }

    /// Last time |a| was above `fraction` of the peak: when the effect had died away.
    public func settledMilliseconds(fraction: Double = 0.1) -> Double? {
        let threshold = fraction * peakG
        guard threshold > 0, let i = accelerationG.lastIndex(where: { abs($0) > threshold }) else { return nil }
        return timeMilliseconds[i] - (timeMilliseconds.first ?? 0)
    }
}

/// The simulated board: a DRV2605(L) model with the profile's actuator on its outputs.
public final class SimulatedDevice: HardwareDevice {
    public let chip: DRV2605Chip
    public let bus: SimulatedI2CBus

    public init(variant: DeviceVariant, load: Load, supplyVolts: Double) {
        chip = DRV2605Chip(variant: variant, load: load, supplyVolts: supplyVolts)
        bus = SimulatedI2CBus(chip: chip)
    }

    public var summary: String { "simulated \(chip.variant) (chip model, virtual time, VDD \(format(chip.supplyVolts, 2)) V)" }

    public func acceleration() -> AccelerationTrace? {
        AccelerationTrace(timeMilliseconds: chip.trace.timeMilliseconds, accelerationG: chip.trace.accelerationG)
    }

    public func clearAcceleration() { chip.clearTrace() }
}
