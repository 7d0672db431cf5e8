import DeviceInterface
import Actuators
import DRV2605
import DRV2605Model
import Foundation

/// A chip model with an actuator, its bus and a driver: what every test starts from.
struct TestBench {
    let chip: DRV2605Chip
    let bus: SimulatedI2CBus
    var driver: DRV2605Driver<SimulatedI2CBus>
    let profile: ActuatorProfile

    init(profile name: String, variant: DeviceVariant = .drv2605L, load: Load? = nil) throws {
        let profile = try ActuatorProfileLoader.resolve(name, directories: [TestBench.profileDirectory])
        self.profile = profile
        chip = DRV2605Chip(variant: variant, load: load ?? .actuator(Actuator(profile: profile)))
        bus = SimulatedI2CBus(chip: chip)
        driver = DRV2605Driver(bus: bus)
    }

    static var profileDirectory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Hardware/actuators").path
    }

    static func profile(_ name: String) throws -> ActuatorProfile {
        try ActuatorProfileLoader.resolve(name, directories: [profileDirectory])
    }
}
