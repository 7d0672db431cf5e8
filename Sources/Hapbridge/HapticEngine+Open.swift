import Actuators
import Bench
import DeviceInterface
import Devices
import HapticEngine
import SimulatedBridgeDevice

extension HapticEngine {
    /// An engine for the device at `address` (nil: the bridge board if exactly one is
    /// plugged in, else the simulated board), opened through the catalog as every command
    /// opens it, with the calibration `hapbridge calibrate` stored for this board and
    /// actuator: found at `start()` by the serial the board states, as `play` finds it. It drives itself on the wall clock, as on a
    /// bridge board: the simulated board runs in real time here, so a feedback
    /// generator's haptic plays as soon as it is asked for.
    public static func open(
        address: DeviceAddress?, actuator: ActuatorProfile, catalog: DeviceCatalog = DeviceCatalog()
    ) throws(DeviceSelectionError) -> HapticEngine {
        let opened = try catalog.open(address, simulated: SimulatedBoardSetup(actuator: actuator, timing: .realTime))
        var options = HapticEngine.Options(driving: .automatic)
        options.storedCalibration = StoredDrive.source(profile: actuator)
        return HapticEngine(link: opened.takeLink(), actuator: actuator, options: options)
    }
}
