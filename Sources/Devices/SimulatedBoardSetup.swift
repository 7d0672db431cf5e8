import Actuators
import BridgeProtocol
import DRV2605
import DRV2605Model
import SimulatedBoard
import SimulatedBridgeDevice

/// How to build the simulated bridge board: what is wired to it and what is wrong
/// with it (to see how the bench reports a fault without breaking hardware).
public struct SimulatedBoardSetup: Sendable {
    /// Faults the simulated board can be told to have.
    public enum Fault: String, Sendable, CaseIterable {
        case none, open, short, absent
        /// An actuator of the other type on the outputs (LRA profile, ERM wired, or back).
        case wrongType = "wrong-type"
        case overTemperature = "over-temperature"
        case overCurrent = "over-current"
        /// The board falls behind its own queue once: its timer interrupt held off
        /// for `timerStall` (a long critical section), so stamped commands run late
        /// and the queue fills while the host goes on sending; it refuses what does
        /// not fit (QUEUE_FULL).
        case timerStall = "timer-stall"
    }

    /// When the `timer-stall` fault holds the timer, in µs since the board's power-up:
    /// 400 ms in (a pattern started at once is playing by then), for 30 ms (below the
    /// engine's 50 ms overload limit, so the engine rides it out).
    public static let timerStall: Range<UInt64> = 400_000..<430_000

    /// The actuator on the default simulated board: the best-documented LRA profile in
    /// `Hardware/actuators` (Precision Microdrives C10-100, 175 Hz).
    public static let defaultActuatorProfile = "pmd-c10-100"

    /// The actuator on the outputs (nil: nothing attached).
    public var actuator: ActuatorProfile?
    public var variant: DeviceVariant
    public var supplyVolts: Double
    public var fault: Fault
    public var timing: SimulatedTiming
    public var link: SimulatedBridgeDevice.Link
    /// A LIS3DH accelerometer on the board's bus at 0x18, on the actuator's sled
    /// (Hardware/boards/accelerometer.md): the firmware core finds it and streams it, so
    /// acceleration figures come from the sensor model, not straight from the physics.
    public var accelerometer: Bool = false
    /// The seed of the accelerometer's noise (nil: `LIS3DHChip.defaultNoiseSeed`, the
    /// same noise every run): runs that differ only in their sensor's noise.
    public var accelerometerNoiseSeed: UInt64?
    /// The board's serial number (HELLO_REPLY, and the key its calibration is stored
    /// under): one fixed name, so a calibration on the simulated board is found again.
    public var serialNumber: BoardSerialNumber = Self.serialNumber

    /// What the simulated board calls itself.
    public static let serialNumber: BoardSerialNumber = {
        // A literal that satisfies the rule; a failure here would be a typo caught by the tests.
        (try? BoardSerialNumber("SIMULATED")) ?? .unset
    }()

    public init(
        actuator: ActuatorProfile?, variant: DeviceVariant = .drv2605L, supplyVolts: Double = 5, fault: Fault = .none,
        timing: SimulatedTiming = .virtual, link: SimulatedBridgeDevice.Link = .init()
    ) {
        self.actuator = actuator
        self.variant = variant
        self.supplyVolts = supplyVolts
        self.fault = fault
        self.timing = timing
        self.link = link
    }

    /// What the fault puts on the chip's outputs.
    var load: Load {
        switch fault {
        case .open: return .open
        case .short: return .shorted
        case .wrongType:
            let other = actuator.map { $0.kind == .lra ? Self.standInERM : Self.standInLRA } ?? Self.standInERM
            return .actuator(Actuator(profile: other))
        default: return actuator.map { .actuator(Actuator(profile: $0)) } ?? .open
        }
    }

    /// The board, powered up with the fault in place.
    func makeBoard() -> SimulatedBoard {
        var configuration = SimulatedBoard.Configuration(variant: variant, load: load, supplyVolts: supplyVolts, serialNumber: serialNumber)
        // Flat on the sled, X along the actuator's motion (the host reads X by default).
        configuration.accelerometer = accelerometer ? .init() : nil
        if let accelerometerNoiseSeed { configuration.accelerometerNoiseSeed = accelerometerNoiseSeed }
        let board = SimulatedBoard(configuration: configuration)
        switch fault {
        case .absent: board.chip.isPresent = false
        case .overTemperature: board.chip.inject(.overTemperature)
        case .overCurrent: board.chip.inject(.overCurrent)
        case .timerStall: board.timerHold = Self.timerStall
        default: break
        }
        return board
    }

    /// One line for reports.
    var summary: String {
        let load: String
        switch self.load {
        case .actuator(let a): load = "\(a.kind == .lra ? "LRA" : "ERM") actuator"
        case .open: load = "no actuator"
        case .shorted: load = "shorted outputs"
        }
        let clock = timing == .virtual ? "virtual time" : "real time"
        let sensor = accelerometer ? " + LIS3DH at 0x18" : ""
        return "simulated bridge board (firmware core + \(variant) model + \(load)\(sensor), \(clock)"
            + (fault == .none ? ")" : ", simulated fault: \(fault.rawValue))")
    }

    /// Built-in stand-ins for `wrong-type` (no file lookup needed).
    static let standInERM = ActuatorProfile(
        id: "stand-in-erm", maker: "generic", partNumber: "10 mm coin ERM", kind: .erm, ratedVoltage: 3, maxVoltage: 3.6,
        coilResistanceOhms: 30, ratedAccelerationG: 0.8, erm: .init(ratedSpeedRPM: 10_000, timeConstantMilliseconds: 40),
        source: .init(document: "stand-in for fault simulation"))
    static let standInLRA = ActuatorProfile(
        id: "stand-in-lra", maker: "generic", partNumber: "10 mm coin LRA", kind: .lra, ratedVoltage: 2, maxVoltage: 2.5,
        coilResistanceOhms: 25, ratedAccelerationG: 0.7, lra: .init(resonantFrequencyHz: 175, qualityFactor: 12, movingMassGrams: 2),
        source: .init(document: "stand-in for fault simulation"))
}
