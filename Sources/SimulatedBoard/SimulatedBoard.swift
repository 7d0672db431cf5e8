import Actuators
import BridgeProtocol
import DRV2605
import DRV2605Model
import FirmwareCore
import SensorModel

/// The bridge board in software: the firmware's portable core (the same C sources
/// the ATmega32U4 build uses, through the `FirmwareCore` target) with its hardware
/// hooks wired to the DRV2605 chip model, the actuator physics behind it, and a
/// virtual microsecond clock.
///
/// It is the deterministic twin of a board, in the spirit of SwiftNIO's
/// `EmbeddedChannel`: nothing happens until the owner calls `send(_:)` or
/// `advance(by:)` / `advance(to:)`. No threads, no sleeping, no wall clock — so a
/// test of a 5-second drive runs as fast as the physics can be stepped, and the same
/// inputs always give the same I2C log, frames and acceleration.
///
/// A `final class`, deliberately neither `Sendable` nor an actor: the firmware core
/// calls back into it synchronously (hooks with an unretained pointer to it as
/// context), and every call must see the state the previous one left, in order, on
/// one thread. One task owns a board (a test, a CLI command, later the simulated
/// transport's actor, which serialises access for the engine); strict concurrency
/// then keeps it from being shared by accident. Tests read the log and the chip
/// without `await`.
public final class SimulatedBoard {
    /// Everything that shapes a board, fixed at power-up.
    public struct Configuration: Sendable {
        public var variant: DeviceVariant
        /// What is on the chip's outputs (an actuator from a profile, open, shorted).
        public var load: Load
        public var supplyVolts: Double
        /// Resolution of board time, reported in HELLO_REPLY (this clock counts whole µs).
        public var tickNanoseconds: UInt16
        /// The intake it states in HELLO_REPLY (least µs between stamped writes): the
        /// board it models, the ATmega32U4 (protocol.h's figure for a board that does
        /// not say); 0 states none.
        public var writeSpacingMicroseconds: UInt16 = UInt16(HB_UNSTATED_WRITE_SPACING_US)
        /// The longest stretch of board time between two `hb_core_poll` calls. The core
        /// asks for at least one per millisecond (core.h); its deadlines are met exactly
        /// whatever this is, so it only bounds how stale a chip-side change can get.
        public var maximumPollIntervalMicroseconds: UInt64
        /// Keep the chip's acceleration trace (10 kHz samples).
        public var recordsAcceleration: Bool
        /// The firmware clock's reading at power-up. A real board starts at 0; a value
        /// just below 2^32 lets a test cross the clock's wrap without simulating the
        /// 71 minutes before it.
        public var bootTime: UInt32
        /// The most transactions `i2cLog` keeps; later ones are counted in
        /// `unloggedI2CTransactions` only (an open session reads STATUS 50 times a second,
        /// so an engine running for hours must not grow the log without bound).
        public var i2cLogCapacity: Int
        /// The board's serial number, reported in a 1.1 HELLO_REPLY. A board whose
        /// EEPROM holds none and whose chip has no unique ID says `.unset`.
        public var serialNumber: BoardSerialNumber
        /// What the board reports in its boot section (a simulated board has none to
        /// jump to: `enterBootloader` is only counted).
        public var bootloader: BootloaderKind
        /// A LIS3DH breakout on the bus (Hardware/boards/README.md, "Accelerometer"),
        /// mounted on the actuator's sled as this says; nil: none fitted (the default: a
        /// board as sold, and every figure then comes from the model).
        public var accelerometer: LIS3DHChip.Mounting?
        /// Where it answers: 0x18 with SA0 low, 0x19 high.
        public var accelerometerAddress: UInt8 = LIS3DHChip.defaultAddress
        /// The seed of its noise (`LIS3DHChip.defaultNoiseSeed`: the same every run).
        public var accelerometerNoiseSeed: UInt64 = LIS3DHChip.defaultNoiseSeed

        public init(
            variant: DeviceVariant = .drv2605L, load: Load = .open, supplyVolts: Double = 5.0,
            tickNanoseconds: UInt16 = 1000, maximumPollIntervalMicroseconds: UInt64 = 1000, recordsAcceleration: Bool = true,
            bootTime: UInt32 = 0, i2cLogCapacity: Int = 1_000_000, serialNumber: BoardSerialNumber = .unset,
            bootloader: BootloaderKind = .noneFound
        ) {
            self.variant = variant
            self.load = load
            self.supplyVolts = supplyVolts
            self.tickNanoseconds = tickNanoseconds
            self.maximumPollIntervalMicroseconds = maximumPollIntervalMicroseconds
            self.recordsAcceleration = recordsAcceleration
            self.bootTime = bootTime
            self.i2cLogCapacity = i2cLogCapacity
            self.serialNumber = serialNumber
            self.bootloader = bootloader
        }

        /// A board with this actuator wired to the chip.
        public init(profile: ActuatorProfile, variant: DeviceVariant = .drv2605L, supplyVolts: Double = 5.0) {
            self.init(variant: variant, load: .actuator(Actuator(profile: profile)), supplyVolts: supplyVolts)
        }
    }

    /// The I2C peer at 0x5A. Its time is the board's: advance the board, not the chip.
    public let chip: DRV2605Chip
    /// The bench accelerometer, when one is fitted, sampling `chip`'s actuator.
    public let accelerometer: LIS3DHChip?
    public let configuration: Configuration

    /// Virtual time since power-up, in µs. Never wraps; `boardTime` is what the
    /// firmware sees.
    public private(set) var time: UInt64 = 0
    /// The firmware's clock: free-running µs from `configuration.bootTime`, wrapping
    /// at 2^32 like the real board's.
    public var boardTime: UInt32 { configuration.bootTime &+ UInt32(truncatingIfNeeded: time) }

    /// Every bus transaction the firmware made, in order, with its board time.
    public internal(set) var i2cLog: [I2CTransaction] = []
    /// Transactions made after `i2cLog` reached `configuration.i2cLogCapacity`.
    public internal(set) var unloggedI2CTransactions = 0
    /// How often the firmware jumped to the (absent) bootloader.
    public internal(set) var bootloaderEntries = 0

    /// The core state, caller-owned as core.h asks. Heap-allocated so it never
    /// moves: the core keeps pointers into itself (the chip driver's hooks).
    let core: UnsafeMutablePointer<hb_core>
    /// When the firmware asked for hb_core_timer_fired, in virtual time; nil when disarmed.
    var armedAt: UInt64?
    var outbox: [[UInt8]] = []
    /// The room the port's transmit path has now for a frame nobody asked for, bytes
    /// (hooks.h, send_room), where the owner models a port (`CoreBridgeBoard`: the
    /// ATmega32U4's ring less what it keeps for replies); nil: every frame fits, as on
    /// a link that takes whatever the board sends.
    public var transmitRoom: (() -> Int)?

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        chip = DRV2605Chip(variant: configuration.variant, load: configuration.load, supplyVolts: configuration.supplyVolts)
        chip.isRecording = configuration.recordsAcceleration
        accelerometer = configuration.accelerometer.map { LIS3DHChip(address: configuration.accelerometerAddress, mounting: $0, seed: configuration.accelerometerNoiseSeed) }
        core = .allocate(capacity: 1)
        core.initialize(to: hb_core())
        var hooks = Self.hooks(context: Unmanaged.passUnretained(self).toOpaque())
        var config = Self.coreConfig(configuration)
        hb_core_init(core, &hooks, &config)
        hb_core_start(core)
        settleIgnoringRunaway()
    }

    /// Virtual time does not run during a hook, so there is nothing to lead or spin for:
    /// the timer fires exactly on the stamp and the write happens then.
    static func coreConfig(_ configuration: Configuration) -> hb_core_config {
        var config = hb_core_config()
        config.tick_ns = configuration.tickNanoseconds
        config.write_spacing_us = configuration.writeSpacingMicroseconds
        config.bootloader_kind = configuration.bootloader.rawValue
        let serial = configuration.serialNumber.bytes // 1...20 bytes: BoardSerialNumber's rule
        config.serial_len = UInt8(truncatingIfNeeded: serial.count)
        withUnsafeMutableBytes(of: &config.serial) { field in
            for (i, byte) in serial.enumerated() where i < field.count { field[i] = byte }
        }
        return config
    }

    public convenience init(profile: ActuatorProfile, variant: DeviceVariant = .drv2605L) {
        self.init(configuration: Configuration(profile: profile, variant: variant))
    }

    deinit {
        core.deinitialize(count: 1)
        core.deallocate()
    }

    // MARK: host side

    /// Bytes from the host, as a bulk OUT transfer would deliver them (any chunking:
    /// whole frames, parts of frames, several frames). The firmware decodes them at
    /// the current board time; anything due at once (a command stamped in the past)
    /// runs before this returns, as the timer interrupt would.
    public func send(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { b in
            guard let base = b.baseAddress else { return }
            // In bulk-OUT-sized pieces, as the port's main loop hands them over (the
            // decoder is byte-wise, so this changes nothing but keeps any length in range).
            var offset = 0
            while offset < b.count {
                let n = min(Self.packetSize, b.count - offset)
                hb_core_receive(core, base + offset, UInt32(n))
                offset += n
            }
        }
        settleIgnoringRunaway()
    }

    /// Full-speed bulk endpoint size of the ATmega32U4 port (PROTOCOL.md, Transport).
    static let packetSize = 64

    /// Frames the firmware sent since the last call, each one whole, oldest first
    /// (what the host would read from bulk IN). Draining, like `EmbeddedChannel`'s
    /// `readOutbound`: a pull, not a stream, because nothing happens between two calls
    /// of the owner anyway, and a pull keeps the board free of tasks and buffering
    /// policy; a transport wraps it in whatever stream its callers want.
    public func receivedFrames() -> [[UInt8]] {
        defer { outbox.removeAll(keepingCapacity: true) }
        return outbox
    }

    // MARK: time

    /// Moves virtual time on by `microseconds`; see `advance(to:)`.
    public func advance(by microseconds: UInt64) throws(SimulatedBoardError) {
        let (target, overflow) = time.addingReportingOverflow(microseconds)
        guard !overflow else { throw .timeOverflow(now: time, by: microseconds) }
        try advance(to: target)
    }

    /// Moves virtual time on to `target` (µs since power-up), stopping at every
    /// moment the firmware has work: its armed timer (a stamped command is due), its
    /// own deadlines (keep-alive, status and GO polls, drive limit) and at least every
    /// `maximumPollIntervalMicroseconds`. At each stop the chip model and the actuator
    /// physics are first brought to that moment, then `hb_core_timer_fired` runs if
    /// the timer is due, then `hb_core_poll`: so every I2C transaction happens on the
    /// chip at the board time the firmware ran it.
    public func advance(to target: UInt64) throws(SimulatedBoardError) {
        guard target >= time else { throw .timeWentBackwards(now: time, requested: target) }
        try settle()
        while true {
            let next = nextStop()
            guard next < target else { break }
            moveClock(to: next)
            try settle()
        }
        moveClock(to: target)
        try settle()
    }

    /// Moves on to the next time the board's clock reads `boardTime` (at most 2^32 µs
    /// ahead; now, if it reads that already). What an engine streaming in board time uses.
    public func advance(toBoardTime boardTime: UInt32) throws(SimulatedBoardError) {
        try advance(by: UInt64(boardTime &- self.boardTime))
    }

    /// While virtual time is in this range (µs since power-up), the firmware's timer
    /// callback does not run: its interrupt is held off, as a long critical section
    /// elsewhere would hold it. Stamped commands wait past their stamps and the queue
    /// fills while the host goes on sending: how a test makes the board fall behind.
    public var timerHold: Range<UInt64>?

    var timerHeld: Bool { timerHold?.contains(time) ?? false }

    /// The next moment after now the firmware wants to run (virtual µs).
    func nextStop() -> UInt64 {
        var next = time + max(1, configuration.maximumPollIntervalMicroseconds)
        if let hold = timerHold {
            if hold.lowerBound > time { next = min(next, hold.lowerBound) }
            if hold.upperBound > time { next = min(next, hold.upperBound) }
        }
        if let armedAt, armedAt > time, !(timerHold?.contains(armedAt) ?? false) { next = min(next, armedAt) }
        var at: UInt32 = 0
        if hb_core_next_deadline(core, &at) {
            let ahead = Int32(bitPattern: at &- boardTime)
            // A deadline already passed is one the core chose to defer (its bus guard
            // keeps polls off the bus near a due command); it retries on the next poll,
            // which the interval above provides.
            if ahead > 0 { next = min(next, time + UInt64(ahead)) }
        }
        return next
    }

    func moveClock(to target: UInt64) {
        chip.advance(toMicroseconds: target, sampledBy: accelerometer)
        time = target
    }

    /// One main-loop pass at a fixed instant: the timer callback if it is due (it may
    /// re-arm for a command stamped the same microsecond), then the poll.
    func settle() throws(SimulatedBoardError) {
        var passes = 0
        repeat {
            if let at = armedAt, at <= time, !timerHeld {
                armedAt = nil
                hb_core_timer_fired(core)
            }
            hb_core_poll(core)
            passes += 1
            // The core drains every due command in one timer call, so a second pass is
            // rare; a thousand means it re-arms in the past forever.
            guard passes < Self.settlePassLimit else { throw .firmwareDidNotSettle(time: time) }
        } while (armedAt.map({ $0 <= time }) ?? false) && !timerHeld
    }

    static let settlePassLimit = 1000

    /// `send` and `init` cannot throw (the host's bytes are the firmware's to judge);
    /// a runaway there surfaces on the next `advance`, which settles again first.
    func settleIgnoringRunaway() {
        do { try settle() } catch {}
    }
}

/// What can go wrong driving the simulation itself (never the firmware's verdict on
/// host bytes: that comes back as frames).
public enum SimulatedBoardError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Virtual time only moves forward.
    case timeWentBackwards(now: UInt64, requested: UInt64)
    case timeOverflow(now: UInt64, by: UInt64)
    /// The firmware kept asking for its timer at the current instant without end.
    case firmwareDidNotSettle(time: UInt64)

    public var description: String {
        switch self {
        case .timeWentBackwards(let now, let t): "cannot advance to \(t) µs: the board is already at \(now) µs"
        case .timeOverflow(let now, let by): "advancing \(now) µs by \(by) µs overflows"
        case .firmwareDidNotSettle(let t): "the firmware re-armed its timer in the past without end at \(t) µs"
        }
    }
}
