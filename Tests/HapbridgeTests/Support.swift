import Foundation
import Hapbridge

/// The shipped profiles, found from this file so the tests do not depend on the
/// directory they run in.
func profile(_ name: String = "pmd-c10-100") throws -> ActuatorProfile {
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return try ActuatorProfileLoader.resolve(name, directories: [repository.appendingPathComponent("Hardware/actuators").path])
}

/// Session options for a test: the user's calibration store is not read, so the drive
/// is the same on every machine.
func testOptions(keepsCommands: Bool = true) -> PlaySession.Options {
    var options = PlaySession.Options(keepsCommands: keepsCommands)
    options.usesStoredCalibration = false
    return options
}
