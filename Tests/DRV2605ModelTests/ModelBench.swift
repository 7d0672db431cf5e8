import Actuators
import DRV2605
import DRV2605Model
import Foundation

/// Profiles from the repository and a chip to drive directly (no driver: these
/// tests pin the model's own behaviour, poking registers as a bus master would).
enum ModelBench {
    static var profileDirectory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Hardware/actuators").path
    }

    static func profile(_ name: String) throws -> ActuatorProfile {
        try ActuatorProfileLoader.resolve(name, directories: [profileDirectory])
    }

    static func write(_ chip: DRV2605Chip, _ register: RegisterAddress, _ bytes: UInt8...) throws {
        try chip.i2cWrite(address: DRV2605Chip.i2cAddress, register: register.rawValue, bytes: bytes)
    }

    static func read(_ chip: DRV2605Chip, _ register: RegisterAddress) throws -> UInt8 {
        try chip.i2cRead(address: DRV2605Chip.i2cAddress, register: register.rawValue, count: 1)[0]
    }

    /// A chip configured for `profile` (closed loop unless changed) and calibrated,
    /// through the registers the driver would write.
    static func configuredChip(_ name: String, overrideProfile: (inout ActuatorProfile) -> Void = { _ in }) throws -> DRV2605Chip {
        var profile = try profile(name)
        overrideProfile(&profile)
        let chip = DRV2605Chip(profile: profile)
        let s = try DriveSettings(profile: profile)
        try write(chip, .mode, 0x00)
        try write(chip, .ratedVoltage, s.ratedVoltage, s.overdriveClamp)
        try write(chip, .feedbackControl, s.feedback.rawValue)
        try write(chip, .control1, s.control1.rawValue, s.control2.rawValue, s.control3.rawValue, s.control4.rawValue)
        if let p = s.openLoopPeriod { try write(chip, .openLoopLRAPeriod, p) }
        try write(chip, .mode, ModeRegister(mode: .autoCalibration).rawValue)
        try write(chip, .go, 1)
        chip.runUntilIdle()
        chip.advance(milliseconds: 600)
        try write(chip, .mode, 0x00)
        chip.clearTrace()
        return chip
    }

    static func rtp(_ chip: DRV2605Chip, _ value: Int8) throws {
        try write(chip, .mode, ModeRegister(mode: .realTimePlayback).rawValue)
        try write(chip, .rtpInput, UInt8(bitPattern: value))
    }
}
