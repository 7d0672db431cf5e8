import Actuators
import Devices
import Foundation

let actuatorDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Hardware/actuators").path

func profile(_ name: String = "pmd-c10-100") throws -> ActuatorProfile {
    try ActuatorProfileLoader.resolve(name, directories: [actuatorDirectory])
}
