import DRV2605Model
import Hex
import SensorModel

/// The DRV2605 at the end of the ELF's TWI bus when the harness runs with `--chip host`
/// (Firmware/sim/serve.c, usb_serve.c): the same behavioural chip, with the same
/// actuator physics, that the simulated board's I2C hook reaches (`DRV2605Chip`), so
/// the firmware ELF and the firmware core drive one model rather than two.
///
/// The harness forwards each transaction at its simulated time: a write when its STOP
/// is on the bus ("chip w SIM_US HEX"), a read byte by byte as the firmware clocks it
/// ("chip r SIM_US RR"), and waits for the answer ("chip VV"); the simulation stands
/// still meanwhile, so the chip sees the firmware's traffic at exactly its simulated
/// moments whatever the host's speed. The chip's clock is the harness's simulated µs,
/// brought forward to each transaction (and by the owner, for the physics in between).
///
/// **The bench accelerometer.** With a `LIS3DHChip` fitted (`accelerometer`), the
/// harness also acknowledges its address (`--accel 18`) and forwards its transactions
/// the same way ("accel w …", "accel r …" → "accel VV"): the sensor is the very model
/// the simulated board's bus carries, stepped on the same simulated clock as the chip,
/// each sample taken from the physics brought to its own moment, so the ELF and the
/// firmware core read one sensor on one actuator.
///
/// Not `Sendable`: one thread (whoever reads the harness's lines) owns it, as one task
/// owns a simulated board.
public final class HarnessChip {
    public let chip: DRV2605Chip
    /// The LIS3DH on the sled, when one is fitted.
    public let accelerometer: LIS3DHChip?

    public init(chip: DRV2605Chip, accelerometer: LIS3DHChip? = nil) {
        self.chip = chip
        self.accelerometer = accelerometer
    }

    /// A DRV2605L with this load, recording its acceleration or not, and a LIS3DH
    /// mounted on its sled as `accelerometer` says (nil: none).
    public convenience init(
        load: Load, recordsAcceleration: Bool, accelerometer: LIS3DHChip.Mounting? = nil,
        accelerometerAddress: UInt8 = LIS3DHChip.defaultAddress
    ) {
        let chip = DRV2605Chip(variant: .drv2605L, load: load)
        chip.isRecording = recordsAcceleration
        self.init(chip: chip, accelerometer: accelerometer.map { LIS3DHChip(address: accelerometerAddress, mounting: $0) })
    }

    /// The arguments that make the harness forward the chip's transactions here (and
    /// the accelerometer's, at its address, when one is fitted).
    public var harnessArguments: [String] { Self.harnessArguments(accelerometerAddress: accelerometer?.address) }

    /// The same for a chip not built yet (nil: no accelerometer).
    public static func harnessArguments(accelerometerAddress: UInt8?) -> [String] {
        ["--chip", "host"] + (accelerometerAddress.map { ["--accel", Hex.digits($0, case: .lower)] } ?? [])
    }

    /// The chip, its physics and the sensor brought to a simulated moment (never back):
    /// the sensor's samples due on the way each at its own moment, as on the simulated
    /// board (`SimulatedBoard.moveClock`).
    public func advance(toSimulationMicroseconds t: Double) {
        guard t > 0 else { return }
        chip.advance(toMicroseconds: UInt64(t.rounded(.down)), sampledBy: accelerometer)
    }

    /// Whether a harness line is one of the peers' ("chip …", "accel …"), for `answer`.
    public static func isPeerLine(_ line: String) -> Bool { line.hasPrefix("chip ") || line.hasPrefix("accel ") }

    /// One of the harness's "chip …" (or "accel …") lines: nil when it is not one; otherwise the line
    /// to answer with ("" for a write, which takes none).
    ///
    /// The harness acknowledges every byte at 0x5A itself (its bus timing and log stay
    /// its own), as the model does (`DRV2605Chip.i2cWrite` drops a byte past the map);
    /// a read past the map is the model's own answer (`DRV2605Chip.i2cRead`: 00, the
    /// pointer wrapping at 0xFF), the same the core's hook and every emulated adapter get.
    public func answer(_ line: String) -> String? {
        let words = line.split(separator: " ")
        if words.count == 3, words[0] == "chip", words[1] == "t", let at = Double(words[2]) {
            advance(toSimulationMicroseconds: at)  // the harness's clock, sent as it runs
            return ""
        }
        if words.count >= 4, words[0] == "accel", let at = Double(words[2]), let sensor = accelerometer {
            return answerAccelerometer(sensor, words, at: at)
        }
        guard words.count == 4, words[0] == "chip", let at = Double(words[2]) else { return nil }
        switch words[1] {
        case "w":
            guard let bytes = Hex.decode(words[3]), let register = bytes.first else { return nil }
            advance(toSimulationMicroseconds: at)
            try? chip.i2cWrite(address: chip.address, register: register, bytes: Array(bytes.dropFirst()))
            return ""
        case "r":
            guard let register = Hex.value(words[3], as: UInt8.self) else { return nil }
            advance(toSimulationMicroseconds: at)
            let value = (try? chip.i2cRead(address: chip.address, register: register, count: 1))?.first ?? 0
            return "chip " + Hex.bytes([value], case: .lower)
        default:
            return nil
        }
    }

    /// The sensor's side of the same exchanges ("accel w SIM_US HEX", "accel r SIM_US
    /// SS N": the Nth byte read since sub-address SS). The harness acknowledges its
    /// address itself; a byte the model refuses is dropped (or read as 00).
    private func answerAccelerometer(_ sensor: LIS3DHChip, _ words: [Substring], at: Double) -> String? {
        switch (words[1], words.count) {
        case ("w", 4):
            guard let bytes = Hex.decode(words[3]), let register = bytes.first else { return nil }
            advance(toSimulationMicroseconds: at)
            try? sensor.i2cWrite(address: sensor.address, register: register, bytes: Array(bytes.dropFirst()))
            return ""
        case ("r", 5):
            guard let sub = Hex.value(words[3], as: UInt8.self), let index = Int(words[4]) else { return nil }
            advance(toSimulationMicroseconds: at)
            let value = (try? sensor.i2cReadByte(address: sensor.address, subAddress: sub, index: index)) ?? 0
            return "accel " + Hex.bytes([value], case: .lower)
        default:
            return nil
        }
    }
}
