import Actuators
import DeviceInterface
import Devices
import Foundation

/// A bench device as the runner keeps it between steps: its address, its actuator,
/// how to build it when it is the simulated board, and whether a script unplugged it.
///
/// Every step opens the device afresh by its address (as a new `hapbridge` command
/// would), so one step's failure leaves nothing half-open for the next. The simulated
/// board exists only while opened, so `unplug` on `sim` marks it absent from the bench
/// until `replug`: a step on it then finds it gone, exactly as a step on a bridge board
/// whose cable was pulled finds it missing from USB.
final class DeviceSlot: @unchecked Sendable {
    let spec: BenchFile.Device
    let profile: ActuatorProfile
    let catalog: DeviceCatalog
    private let lock = NSLock()
    private var unpluggedValue = false

    /// The simulated board gets the bench's LIS3DH (`BenchFile.accelerometerFeature`).
    let fitsAccelerometer: Bool

    init(spec: BenchFile.Device, profile: ActuatorProfile, catalog: DeviceCatalog, fitsAccelerometer: Bool = false) {
        self.spec = spec
        self.profile = profile
        self.catalog = catalog
        self.fitsAccelerometer = fitsAccelerometer
    }

    var isSimulated: Bool { spec.address == .simulated }

    var unplugged: Bool {
        get { lock.withLock { unpluggedValue } }
        set { lock.withLock { unpluggedValue = newValue } }
    }

    var setup: SimulatedBoardSetup {
        var setup = SimulatedBoardSetup(actuator: profile, supplyVolts: spec.simulatedSupplyVolts, fault: spec.simulatedFault)
        setup.accelerometer = fitsAccelerometer
        return setup
    }

    /// Opens it, or says it is gone.
    func open() throws(StepProblem) -> OpenedDevice {
        if isSimulated, unplugged { throw .error("\(spec.name) (sim) is unplugged") }
        do { return try catalog.open(spec.address, simulated: setup) } catch { throw .error("\(spec.name) (\(spec.address)): \(error)") }
    }

    /// Whether the device is on the bench now (a bridge board: listed on USB).
    var isPresent: Bool {
        if isSimulated { return !unplugged }
        return (try? catalog.choose(spec.address)) != nil
    }

    /// Waits up to `seconds` for a vanished device to come back: the seconds it took,
    /// or nil. The simulated board comes back only by a `replug` step, so there is
    /// nothing to wait for.
    func awaitReturn(within seconds: Double) async -> Double? {
        if isSimulated { return unplugged ? nil : 0 }
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(seconds) {
            if isPresent { return Self.seconds(ContinuousClock.now - start) }
            try? await Task.sleep(for: .milliseconds(250))
        }
        return isPresent ? seconds : nil
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
