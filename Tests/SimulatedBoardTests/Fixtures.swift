import DeviceInterface
import Actuators
import BridgeProtocol
import DRV2605
import DRV2605Model
import Foundation
import SimulatedBoard

/// The shipped profiles, found from this file so the tests do not depend on the
/// working directory.
let actuatorDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Hardware/actuators").path

func profile(_ name: String) throws -> ActuatorProfile {
    try ActuatorProfileLoader.resolve(name, directories: [actuatorDirectory])
}

/// A test's side of the wire: numbers frames, sends them to the board, and reads
/// back what the board said, decoded.
struct Host {
    let board: SimulatedBoard
    var encoder = HostFrameEncoder()

    init(board: SimulatedBoard) { self.board = board }

    mutating func send(_ make: (inout HostFrameEncoder) throws -> [UInt8]) rethrows {
        board.send(try make(&encoder))
    }

    func frames() throws -> [BoardFrame] {
        try board.receivedFrames().map { bytes throws(FrameDecodingError) in try BoardFrame(decoding: bytes) }
    }
}

/// Register settings for a profile as (register, value) pairs, from the driver's own
/// datasheet arithmetic: what a host writes with stamped REG_WRITE commands.
func configurationWrites(for profile: ActuatorProfile, variant: DeviceVariant = .drv2605L) throws -> [(UInt8, UInt8)] {
    let s = try DriveSettings(profile: profile, variant: variant)
    var out: [(UInt8, UInt8)] = [
        (RegisterAddress.ratedVoltage.rawValue, s.ratedVoltage),
        (RegisterAddress.overdriveClamp.rawValue, s.overdriveClamp),
        (RegisterAddress.feedbackControl.rawValue, s.feedback.rawValue),
        (RegisterAddress.control1.rawValue, s.control1.rawValue),
        (RegisterAddress.control2.rawValue, s.control2.rawValue),
        (RegisterAddress.control3.rawValue, s.control3.rawValue),
        (RegisterAddress.control4.rawValue, s.control4.rawValue),
        (RegisterAddress.librarySelection.rawValue, LibrarySelectionRegister(library: s.library).rawValue),
    ]
    if let p = s.openLoopPeriod { out.append((RegisterAddress.openLoopLRAPeriod.rawValue, p)) }
    return out
}

/// Auto-calibration of the same actuator on a bench chip model (driver over the
/// simulated bus), as a user would have run it once with `hapbridge calibrate`; the
/// stream then restores its results with stamped register writes.
func benchCalibration(for profile: ActuatorProfile) async throws -> AutoCalibrationResult {
    let chip = DRV2605Chip(profile: profile)
    var driver = DRV2605Driver(bus: SimulatedI2CBus(chip: chip))
    try await driver.bringUp(profile: profile)
    return try await driver.autoCalibrate()
}

/// Configuration plus calibration, in the order the driver's `restore` writes them.
func setupWrites(for profile: ActuatorProfile) async throws -> [(UInt8, UInt8)] {
    let cal = try await benchCalibration(for: profile)
    var writes = try configurationWrites(for: profile)
    writes.removeAll { $0.0 == RegisterAddress.feedbackControl.rawValue }
    let block = RegisterAddress.calibrationBlock
    for (i, value) in cal.storedBlock.enumerated() { writes.append((block.lowerBound + UInt8(i), value)) }
    return writes
}
