import DRV2605Model

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
/// Not `Sendable`: one thread (whoever reads the harness's lines) owns it, as one task
/// owns a simulated board.
public final class HarnessChip {
    public let chip: DRV2605Chip

    public init(chip: DRV2605Chip) {
        self.chip = chip
    }

    /// A DRV2605L with this load, recording its acceleration or not.
    public convenience init(load: Load, recordsAcceleration: Bool) {
        let chip = DRV2605Chip(variant: .drv2605L, load: load)
        chip.isRecording = recordsAcceleration
        self.init(chip: chip)
    }

    /// The argument that makes the harness forward the chip's transactions here.
    public static let harnessArguments = ["--chip", "host"]

    /// The chip and its physics brought to a simulated moment (never back).
    public func advance(toSimulationMicroseconds t: Double) {
        guard t > 0 else { return }
        chip.advance(toMicroseconds: UInt64(t.rounded(.down)))
    }

    /// One of the harness's "chip …" lines: nil when it is not one; otherwise the line
    /// to answer with ("" for a write, which takes none).
    ///
    /// The harness acknowledges every byte at 0x5A itself (its bus timing and log stay
    /// its own), so a byte the model refuses (a register past the map) is dropped, and
    /// read back as 00, as an absent register reads on the chip.
    public func answer(_ line: String) -> String? {
        let words = line.split(separator: " ")
        guard words.count == 4, words[0] == "chip", let at = Double(words[2]) else { return nil }
        switch words[1] {
        case "w":
            guard let bytes = Hex.decode(words[3]), let register = bytes.first else { return nil }
            advance(toSimulationMicroseconds: at)
            try? chip.i2cWrite(address: chip.address, register: register, bytes: Array(bytes.dropFirst()))
            return ""
        case "r":
            guard let register = UInt8(words[3], radix: 16) else { return nil }
            advance(toSimulationMicroseconds: at)
            let value = (try? chip.i2cRead(address: chip.address, register: register, count: 1))?.first ?? 0
            return "chip " + Hex.encode([value])
        default:
            return nil
        }
    }
}
