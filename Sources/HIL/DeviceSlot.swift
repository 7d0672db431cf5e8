import Actuators
import DeviceInterface
import Devices
import Foundation

/// A bench device as the runner keeps it between steps: its address, its actuator,
/// how to build it when it is the simulated board, how its USB power is switched, and
/// whether a script unplugged it.
///
/// Every step opens the device afresh by its address (as a new `hapbridge` command
/// would), so one step's failure leaves nothing half-open for the next. The simulated
/// board exists only while opened, so `unplug` on `sim` marks it absent from the bench
/// until `replug`: a step on it then finds it gone, exactly as a step on a bridge board
/// whose power was cut (`PortPower`) finds it missing from USB.
final class DeviceSlot: @unchecked Sendable {
    let spec: BenchFile.Device
    let profile: ActuatorProfile
    let catalog: DeviceCatalog
    /// How `unplug` and `replug` reach the device, or why they cannot.
    let power: Result<PortPower, PortPower.Unavailable>
    private let lock = NSLock()
    private var unpluggedValue = false

    /// The simulated board gets the bench's LIS3DH (`BenchFile.accelerometerFeature`).
    let fitsAccelerometer: Bool

    /// The run's stop: every wait on this device (for it to come or go, a bench
    /// procedure's, a `wait` step's) ends when it comes.
    let interruption: RunInterruption

    /// `environment`: where the control socket of `hapbridge emulate bridge` is found
    /// when this runs under it.
    init(
        spec: BenchFile.Device, profile: ActuatorProfile, catalog: DeviceCatalog, fitsAccelerometer: Bool = false,
        interruption: RunInterruption = RunInterruption(), environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.spec = spec
        self.profile = profile
        self.catalog = catalog
        self.fitsAccelerometer = fitsAccelerometer
        self.interruption = interruption
        power = PortPower.choose(for: spec, environment: environment)
    }

    var isSimulated: Bool { spec.address == .simulated }

    /// Set by `unplug`, cleared by `replug` (and by the runner, which plugs the device
    /// back in before the next attempt).
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
        var opened: OpenedDevice
        do { opened = try catalog.open(spec.address, simulated: setup) } catch { throw .error("\(spec.name) (\(spec.address)): \(error)") }
        opened.accelerometerAxis = spec.accelerometerAxis
        return opened
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
        return await awaitPresence(true, within: seconds)
    }

    /// Waits up to `seconds` for the device to be on USB (`present`) or off it: the
    /// seconds it took, or nil (also when the run is interrupted). Polled: USB has no
    /// event for "a device matching this address", and the poll is cheap (a device list).
    func awaitPresence(_ present: Bool, within seconds: Double) async -> Double? {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < TimeLimits.duration(seconds) {
            if isPresent == present { return Self.seconds(ContinuousClock.now - start) }
            if Task.isCancelled || interruption.reason != nil { return nil }
            await interruption.sleep(seconds: 0.1)
        }
        return isPresent == present ? seconds : nil
    }

    /// Cuts the device's power (`on` false) or restores it, through whatever switches
    /// it: the simulated board's presence, the emulation's control socket, a hub port.
    /// Returns what was done, for the record.
    func switchPower(on: Bool) async throws(StepProblem) -> String {
        let port: PortPower
        switch power {
        case .success(let p): port = p
        case .failure(let why): throw .error(why.description)
        }
        try await port.switchPower(on: on, of: spec)
        unplugged = !on
        return port.description
    }

    /// Before an attempt and after the run: a device a script unplugged is plugged
    /// back in and awaited, so each attempt starts on the bench as it was set up. Nil
    /// when there was nothing to do, else what happened (for the live output).
    func restore(within seconds: Double) async -> String? {
        guard unplugged else { return nil }
        if isSimulated {
            unplugged = false
            return nil
        }
        do throws(StepProblem) {
            let how = try await switchPower(on: true)
            // Interrupted: power back on (a moment), but not awaited.
            if let why = interruption.reason { return "\(spec.name) (\(spec.address)) plugged back in (\(how)); not awaited: \(why)" }
            guard let took = await awaitPresence(true, within: seconds) else {
                return "\(spec.name) (\(spec.address)) was plugged back in (\(how)) but did not come back within \(Limit.format(seconds)) s"
            }
            return "\(spec.name) (\(spec.address)) plugged back in (\(how)) for what follows; back after \(String(format: "%.1f", took)) s"
        } catch {
            return "\(spec.name) (\(spec.address)) could not be plugged back in: \(HILRunner.text(error))"
        }
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
