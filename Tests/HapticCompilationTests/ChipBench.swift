import Actuators
import DRV2605
import DRV2605Model
import HapticCompilation

/// Compiled programs played on the register-accurate chip model with an actuator on
/// its outputs, in virtual time: what the board would do with the stamped commands,
/// without the board. The chip is written byte for byte as a bus master would.
enum ChipBench {
    /// Auto-calibration of `unit` (the actuator as built) with the settings of
    /// `profile` (as its datasheet says it is), through the driver, as `hapbridge
    /// calibrate` runs it.
    static func calibrate(_ profile: ActuatorProfile, unit: ActuatorProfile, variant: DeviceVariant = .drv2605L) async throws
        -> AutoCalibrationResult
    {
        let chip = DRV2605Chip(variant: variant, profile: unit)
        var driver = DRV2605Driver(bus: SimulatedI2CBus(chip: chip))
        try await driver.bringUp(profile: profile)
        return try await driver.autoCalibrate()
    }

    /// What a program did on the chip: its trace, recorded from the program's time 0
    /// (chip time `start`).
    struct Played {
        let chip: DRV2605Chip
        let start: UInt64
        var trace: Trace { chip.trace }
        /// Chip time of program time `microseconds`.
        func at(_ microseconds: Int64) -> UInt64 { start + UInt64(max(0, microseconds)) }
    }

    /// A chip just out of reset with `unit` attached, set up for the program's target
    /// (its setup block, then RTP mode), having played `program` and
    /// `tailMicroseconds` after it.
    static func play(_ program: DeviceProgram, unit: ActuatorProfile, tailMicroseconds: UInt64 = 300_000) throws -> Played {
        let chip = DRV2605Chip(variant: program.target.variant, profile: unit)
        func write(_ register: UInt8, _ value: UInt8) throws {
            try chip.i2cWrite(address: DRV2605Chip.i2cAddress, register: register, bytes: [value])
        }
        try write(RegisterAddress.mode.rawValue, 0)
        for w in program.target.setupWrites { try write(w.register, w.value) }
        try write(RegisterAddress.mode.rawValue, ModeRegister(mode: .realTimePlayback).rawValue)
        chip.clearTrace()
        let start = chip.nowMicroseconds
        for c in program.commands {
            let due = start + UInt64(max(0, c.time))
            if due > chip.nowMicroseconds { chip.advance(microseconds: due - chip.nowMicroseconds) }
            switch c.command {
            case .rtp(let level): try write(RegisterAddress.rtpInput.rawValue, UInt8(bitPattern: level))
            case .register(let r, let v): try write(r, v)
            case .stop: try write(RegisterAddress.rtpInput.rawValue, 0)
            }
        }
        let end = start + UInt64(max(0, program.duration)) + tailMicroseconds
        if end > chip.nowMicroseconds { chip.advance(microseconds: end - chip.nowMicroseconds) }
        return Played(chip: chip, start: start)
    }
}
