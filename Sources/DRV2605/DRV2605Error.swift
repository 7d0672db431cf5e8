import DeviceInterface
import Hex

/// Everything the driver can report, each with what a bench engineer needs to act.
public enum DRV2605Error: Error, Equatable, Sendable, CustomStringConvertible {
    /// A bus transaction failed while touching `register`.
    case bus(I2CError, register: RegisterAddress)
    /// Waiting on the bus clock failed (cancelled, adapter gone).
    case waitFailed(I2CError)
    /// STATUS.DEVICE_ID is not a DRV260x we know (wrong chip at 0x5A?).
    case unknownDevice(deviceID: UInt8, status: UInt8)
    /// The chip acknowledges its address but every register reads 0xFF (MODE's
    /// reserved bits included, which read 0 on a chip that is on): EN is low.
    case shutDown
    /// The part has no ROM libraries (DRV2604/DRV2604L use RAM waveforms).
    case noROMLibraries(DeviceVariant)
    /// DEV_RESET did not clear within the timeout.
    case resetTimedOut(afterMicroseconds: UInt64)
    /// GO did not clear within the timeout while running `mode`.
    case goTimedOut(mode: OperatingMode, afterMicroseconds: UInt64)
    /// STATUS.OVER_TEMP: the chip shut its output down to cool.
    case overTemperature(status: UInt8)
    /// STATUS.OC_DETECT: the load drew too much current (shorted actuator or wiring).
    case overCurrent(status: UInt8)
    /// Auto-calibration ended with DIAG_RESULT = 1.
    case autoCalibrationFailed(AutoCalibrationResult)
    /// A sequence longer than the eight slots, an invalid effect id or wait.
    case invalidSequence(String)
    /// A setting outside what the chip can do (e.g. a frequency beyond DRIVE_TIME's range).
    case invalidConfiguration(String)
    /// The operation needs a register the variant does not have.
    case unsupported(feature: String, variant: DeviceVariant)

    public var description: String {
        switch self {
        case .bus(let e, let r): return "bus error at \(r): \(e)"
        case .waitFailed(let e): return "waiting on the device clock failed: \(e)"
        case .unknownDevice(let id, let s) where s == 0x00:
            // No DRV260x reads STATUS 0x00 (DEVICE_ID is never 0): a bus that reads every
            // bit low, as one with SDA held low does (its ACK bits read as ACKs too).
            return "unknown device: DEVICE_ID \(id) (STATUS 0x00): \(ChipProbe.everyBitLow) \(ChipProbe.expected)"
        case .unknownDevice(let id, let s):
            return "unknown device: DEVICE_ID \(id) (STATUS \(Hex.literal(s, width: 2))); expected 3 (DRV2605), 4, 6 or 7 (DRV2605L)"
        case .shutDown:
            return "the DRV2605 at 0x5A acknowledges but its registers read 0xFF: EN is low (shutdown: registers cannot be read or written, datasheet §8.4.1.3); tie EN to VDD"
        case .noROMLibraries(let v): return "\(v) has no ROM effect libraries"
        case .resetTimedOut(let us): return "DEV_RESET still set after \(us / 1000) ms"
        case .goTimedOut(let m, let us): return "GO still set after \(us / 1000) ms in \(m) mode"
        case .overTemperature(let s): return "over-temperature: the DRV2605 stopped driving (STATUS \(Hex.literal(s, width: 2)))"
        case .overCurrent(let s):
            return "over-current: the load draws too much current — check for a shorted actuator or wiring (STATUS \(Hex.literal(s, width: 2)))"
        case .autoCalibrationFailed(let r):
            return "auto-calibration failed (DIAG_RESULT = 1): actuator open, shorted, of the wrong type or wrong rated voltage; \(r)"
        case .invalidSequence(let why): return "invalid sequence: \(why)"
        case .invalidConfiguration(let why): return "invalid configuration: \(why)"
        case .unsupported(let f, let v): return "\(f) is not available on the \(v)"
        }
    }
}
