import Actuators
import DRV2605

/// A register-accurate simulated DRV2605 / DRV2605L with the actuator on its outputs.
///
/// Time is virtual: nothing happens until `advance(microseconds:)` is called (the
/// simulated bus calls it for each transaction's duration and for `wait`). Physics
/// steps at a fixed 10 kHz.
///
/// A `final class`, deliberately not `Sendable` and not an actor: one task owns a
/// simulated chip (a test, a CLI command, later the simulated board's actor), every
/// call is synchronous and deterministic, and tests can inspect registers and the
/// trace without `await`. Whoever needs to share it wraps it in their own actor.
public final class DRV2605Chip {
    public static let i2cAddress: UInt8 = DRV2605I2C.address
    /// Physics step.
    public static let stepMicroseconds: UInt64 = 100
    /// DEV_RESET takes this long here (TI gives no figure; drivers poll up to ~100 ms).
    public static let resetMicroseconds: UInt64 = 500
    /// A diagnostic run takes this long here (TI gives no figure).
    public static let diagnosticsMicroseconds: UInt64 = 100_000
    /// Output stage plus wiring resistance in series with the coil; what A_CAL_COMP
    /// makes up for (our assumption, of the order of the DRV2605's H-bridge R_DS(on)).
    public static let outputResistanceOhms = 1.5
    /// The most samples `trace` keeps (about 200 s at 10 kHz).
    public static let traceCapacity = 2_000_000

    public let variant: DeviceVariant
    public let address: UInt8
    public var load: Load
    /// VDD, what VBAT reports and what limits the output swing.
    public var supplyVolts: Double
    /// false: nobody answers at the address (chip absent) — every transaction NACKs.
    public var isPresent = true
    /// EN pin; low = shutdown (no I2C); rising = power-up reset.
    public private(set) var enablePin = true
    public var isRecording = true
    public internal(set) var trace = Trace()
    public internal(set) var nowMicroseconds: UInt64 = 0

    var registers: [UInt8]
    var faults: Set<InjectedFault> = []
    var latchedOverTemperature = false
    var latchedOverCurrent = false
    var resetRemaining: UInt64 = 0
    var subStep: UInt64 = 0
    var activity: Activity = .idle
    var triggerPin = false
    /// IN/TRIG as a PWM duty (0...1) or, in audio-to-vibe, the audio peak volts.
    var inputLevel = 0.0
    var lastDriveVolts = 0.0
    var oscillatorPhase = 0.0
    var periodMeter = PeriodMeter()

    public init(variant: DeviceVariant = .drv2605L, load: Load = .open, supplyVolts: Double = 5.0, address: UInt8 = DRV2605Chip.i2cAddress) {
        self.variant = variant
        self.address = address
        self.load = load
        self.supplyVolts = supplyVolts
        registers = Array(repeating: 0, count: Int(RegisterAddress.lraPeriod.rawValue) + 1)
        loadResetValues()
    }

    public convenience init(variant: DeviceVariant = .drv2605L, profile: ActuatorProfile, supplyVolts: Double = 5.0) {
        self.init(variant: variant, load: .actuator(Actuator(profile: profile)), supplyVolts: supplyVolts)
    }

    func loadResetValues() {
        for r in RegisterAddress.allCases { registers[Int(r.rawValue)] = r.resetValue(on: variant) }
        activity = .idle
        periodMeter = PeriodMeter()
    }

    // MARK: test and bench controls

    /// A register's value, without the side effects of a bus read.
    public func peek(_ register: RegisterAddress) -> UInt8 { registers[Int(register.rawValue)] }

    public func attach(_ profile: ActuatorProfile) { load = .actuator(Actuator(profile: profile)) }

    public func inject(_ fault: InjectedFault) {
        faults.insert(fault)
        switch fault {
        case .overTemperature: latchedOverTemperature = true
        case .overCurrent: latchedOverCurrent = true
        }
        refreshFaultBits()
        stopActivity()
    }

    public func clear(_ fault: InjectedFault) { faults.remove(fault) }

    public func setEnablePin(_ high: Bool) {
        if high && !enablePin {
            loadResetValues()
            latchedOverCurrent = false
            latchedOverTemperature = false
        }
        if !high { stopActivity() }
        enablePin = high
    }

    /// IN/TRIG as a logic level (external trigger modes 1 and 2).
    public func setTriggerPin(_ high: Bool) {
        let rising = high && !triggerPin
        triggerPin = high
        guard !standby, resetRemaining == 0 else { return }
        switch mode.mode {
        case .externalEdgeTrigger where rising: startSequence(setsGo: false)
        case .externalLevelTrigger:
            if rising { startSequence(setsGo: false) } else if !high { stopActivity() }
        default: break
        }
    }

    /// IN/TRIG as PWM duty 0...1 (mode 3) or audio peak volts (mode 4).
    public func setInput(_ value: Double) { inputLevel = value }

    public func clearTrace() { trace = Trace() }

    /// The actuator's acceleration now, in g.
    public var accelerationG: Double { load.actuator?.sledAccelerationG ?? 0 }
    public var driveVolts: Double { lastDriveVolts }
    public var isBusy: Bool { activity != .idle }

    // MARK: views of the registers

    var mode: ModeRegister { ModeRegister(rawValue: peek(.mode)) }
    var standby: Bool { mode.standby }
    var feedback: FeedbackControlRegister { FeedbackControlRegister(rawValue: peek(.feedbackControl)) }
    var control1: Control1Register { Control1Register(rawValue: peek(.control1)) }
    var control2: Control2Register { Control2Register(rawValue: peek(.control2)) }
    var control3: Control3Register { Control3Register(rawValue: peek(.control3)) }
    var control4: Control4Register { Control4Register(rawValue: peek(.control4)) }
    var control5: Control5Register { Control5Register(rawValue: peek(.control5)) }

    func setStatus(_ change: (inout StatusRegister) -> Void) {
        var s = StatusRegister(rawValue: peek(.status))
        change(&s)
        registers[Int(RegisterAddress.status.rawValue)] = s.rawValue
    }

    func setGo(_ on: Bool) { registers[Int(RegisterAddress.go.rawValue)] = GoRegister(go: on).rawValue }
}
