import Actuators
import DRV2605Model
import Dispatch
import Hex
import MPSSE
import RealTime
import Synchronization

/// An FT232H (0403:6014, bcdDevice 0x0900) as a `USBDeviceModel`, as libftdi and pyftdi
/// drive it: FTDI's vendor requests on endpoint 0, the MPSSE command stream on bulk OUT
/// (`MPSSEEngine`, with a DRV2605 on its I2C pins), the answers on bulk IN.
///
/// Bulk IN as the chip sends it: every packet (512 bytes at most) starts with the two
/// modem-status bytes; answers go out at the host's next IN token after a send-immediate
/// (0x87) or once a packet's worth waits, else when the latency timer runs out; with
/// nothing to send the chip still sends the two status bytes when it runs out (libftdi's
/// read then returns 0 bytes, and a reader polls again). Outside MPSSE mode
/// (bit mode reset) bulk OUT is taken and ignored: the UART has nothing attached.
///
/// Calls come from the usbdevfs handler's worker thread; the state is behind a lock.
/// Bulk OUT and the control requests run in arrival order on the chip's own queue, as
/// the chip takes them: a submitted transfer is the host controller's, and the submit
/// returns at once, not once the emulated MPSSE has clocked the commands out (which
/// would charge the whole I2C transaction and the chip model to the submitting
/// thread). IN packets go out on a second queue of the device's (never from
/// `setPolling`).
final class FT232HDevice: USBDeviceModel {
    /// The modem-status bytes (FTDI: CTS and DSR high, transmitter empty).
    static let modemStatus: [UInt8] = [0x32, 0x60]

    private let state: Mutex<State>
    private let queue = DispatchQueue(label: "hapbridge.emulate.ft232h.in")
    private let processor = DispatchQueue(label: "hapbridge.emulate.ft232h.mpsse")

    struct State {
        var host: (any USBHostPort)?
        var usb: StandardRequests
        var engine: MPSSEEngine
        var mpsse = false
        var latencyMilliseconds: UInt8 = 16
        var bitMask: UInt8 = 0
        /// Answers waiting for an IN token.
        var outbound: [UInt8] = []
        /// The answers go at the next IN token (a send-immediate ran, or a packet is
        /// full); else when the latency timer runs out.
        var immediate = false
        var polled = false
        /// Bumped whenever packets go out: a status-only packet scheduled before is void.
        var generation = 0
        /// A latency-timer run is pending (one at a time).
        var timerArmed = false
        var running = true
        var counters = Counters()
        var log: [I2CTargetTransaction] = []
        /// Host time and chip time at the last bulk OUT (`catchUpChip`).
        var lastTransfer: (hostMicroseconds: UInt64, chipMicroseconds: UInt64)?

        /// A DRV2605 runs on its own oscillator whether or not its bus is clocked (an
        /// auto-calibration's AUTO_CAL_TIME, a waveform, an actuator spinning down all go
        /// on while the host sleeps): so the chip's time is the MPSSE clock's while a
        /// command runs, and the host's between them. What the host clocked since the last
        /// transfer already moved the chip; the rest of the host time that passed moves it
        /// now, at most `idleCatchUpMicroseconds` at once (an idle adapter for an hour costs
        /// one second of physics, and a chip idle that long has long settled).
        mutating func catchUpChip(nowMicroseconds now: UInt64) {
            let chip = engine.target.chip
            if let last = lastTransfer {
                let passed = now &- last.hostMicroseconds, clocked = chip.nowMicroseconds &- last.chipMicroseconds
                if now > last.hostMicroseconds, passed > clocked {
                    chip.advance(microseconds: min(passed - clocked, FT232HDevice.idleCatchUpMicroseconds))
                }
            }
            lastTransfer = (now, chip.nowMicroseconds)
        }
    }

    /// The most host time one transfer gives an idle chip (`State.catchUpChip`).
    static let idleCatchUpMicroseconds: UInt64 = 1_000_000

    struct Counters: Sendable {
        var vendorRequests = 0
        var bytesOut = 0
        var bytesIn = 0
    }

    /// The FT232H is high-speed capable: at full speed (its other speed) its bulk
    /// endpoints take 64-byte packets (FT232H datasheet, "USB interface"; USB 2.0
    /// 5.8.3: a full-speed bulk endpoint's wMaxPacketSize is at most 64). So its
    /// device_qualifier says so, and its other_speed_configuration is the configuration
    /// with that packet size (descriptor type 7).
    static func otherSpeed() -> (qualifier: [UInt8], configuration: [UInt8]) {
        let id = FT232HIdentity.self
        let qualifier: [UInt8] = [10, 6, 0x00, 0x02, 0x00, 0x00, 0x00, 64, 1, 0]
        let packet: [UInt8] = [64, 0]
        let configuration: [UInt8] =
            [9, 7, 32, 0, 1, 1, 0, 0x80, 45, 9, 4, 0, 0, 2, 0xFF, 0xFF, 0xFF, 2]
            + [7, 5, id.bulkIn, 2] + packet + [0] + [7, 5, id.bulkOut, 2] + packet + [0]
        return (qualifier, configuration)
    }

    static func descriptors(serial: String) -> (device: [UInt8], configuration: [UInt8], strings: [[UInt8]]) {
        let id = FT232HIdentity.self
        let device: [UInt8] = [
            18, 1, 0x00, 0x02, 0x00, 0x00, 0x00, 64,
            UInt8(id.vendorID & 0xFF), UInt8(id.vendorID >> 8), UInt8(id.productID & 0xFF), UInt8(id.productID >> 8),
            UInt8(id.bcdDevice & 0xFF), UInt8(id.bcdDevice >> 8), 1, 2, 3, 1,
        ]
        let packet = [UInt8(id.packetSize & 0xFF), UInt8(id.packetSize >> 8)]
        // One configuration, bus powered 90 mA; one vendor-specific interface with bulk IN and OUT.
        let configuration: [UInt8] =
            [9, 2, 32, 0, 1, 1, 0, 0x80, 45, 9, 4, 0, 0, 2, 0xFF, 0xFF, 0xFF, 2]
            + [7, 5, id.bulkIn, 2] + packet + [0] + [7, 5, id.bulkOut, 2] + packet + [0]
        return (device, configuration, [[4, 3, 0x09, 0x04], string("FTDI"), string("FT232H"), string(serial)])
    }

    static func string(_ text: String) -> [UInt8] {
        let units = Array(text.utf16)
        return [UInt8(2 + 2 * units.count), 3] + units.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }

    /// What is on the FT232H's I2C pins: a DRV2605L with `actuator` on its outputs, or
    /// nothing (`chipPresent` false: every address byte is NACKed), and how SDA and SCL
    /// reach it (`bus`).
    struct Wiring: Sendable {
        var actuator: ActuatorProfile?
        var chipPresent = true
        var bus = FT232HBusWiring.ok
    }

    init(serial: String, wiring: Wiring) throws(EmulationError) {
        let d = Self.descriptors(serial: serial)
        let usb: StandardRequests
        do {
            usb = try StandardRequests(deviceDescriptor: d.device, configurationDescriptor: d.configuration, strings: d.strings, otherSpeed: Self.otherSpeed())
        } catch {
            throw .enumeration(board: "ft232h", step: "the FT232H's descriptors", detail: error.description)
        }
        let chip = wiring.actuator.map { DRV2605Chip(profile: $0) } ?? DRV2605Chip()
        chip.isPresent = wiring.chipPresent
        // Hours of real time: the chip keeps no acceleration trace.
        chip.isRecording = false
        state = Mutex(State(usb: usb, engine: MPSSEEngine(target: I2CTarget(chip: chip), wiring: wiring.bus)))
    }

    var counters: Counters { state.withLock { $0.counters } }
    var engineCounters: (commands: Int, bad: Int, cycles: UInt64) {
        state.withLock { ($0.engine.commandsRun, $0.engine.badCommands, $0.engine.clockCycles) }
    }

    /// The I2C transactions the chip saw since the last call.
    func drainLog() -> [I2CTargetTransaction] {
        state.withLock { s in
            defer { s.log = [] }
            return s.log + s.engine.target.drainLog()
        }
    }

    /// The chip's virtual time (µs since power-up) and its actuator's acceleration (g).
    var chipNow: (microseconds: UInt64, accelerationG: Double) {
        state.withLock { ($0.engine.target.chip.nowMicroseconds, $0.engine.target.chip.accelerationG) }
    }

    /// What the chip is doing now: MODE, RTP_INPUT, the EN pin, and whether the
    /// actuator is driven (EN high, out of standby, RTP mode with a non-zero amplitude).
    /// How a test sees whether a host that went away left the chip driving.
    var chipState: ChipState {
        state.withLock { s in
            let chip = s.engine.target.chip
            return ChipState(mode: chip.peek(.mode), rtp: chip.peek(.rtpInput), enable: chip.enablePin, accelerationG: chip.accelerationG)
        }
    }

    struct ChipState: Sendable {
        var mode: UInt8
        var rtp: UInt8
        var enable: Bool
        var accelerationG: Double
        /// MODE bit 6 clear, MODE[2:0] = 5 (RTP), a non-zero amplitude, EN high.
        var drivesRTP: Bool { enable && mode & 0x40 == 0 && mode & 0x07 == 5 && rtp != 0 }

        var description: String {
            "chip at the end: MODE \(Hex.literal(mode, width: 2)), RTP \(Hex.literal(rtp, width: 2)), EN \(enable ? "high" : "low"): "
                + (drivesRTP ? "the actuator is still driven" : "the actuator is not driven")
        }
    }

    // MARK: USBDeviceModel

    func connect(to host: any USBHostPort) { state.withLock { $0.host = host } }

    func busReset(completion: @escaping @Sendable () -> Void) {
        processor.async { [self] in
            state.withLock { s in
                s.usb.reset()
                s.outbound = []
            }
            completion()
        }
    }

    func control(_ setup: USBSetupPacket, data: [UInt8], completion: @escaping @Sendable (USBPipeResult) -> Void) {
        // On the processor's queue: a purge or a bit-mode change comes after the
        // commands sent before it.
        processor.async { [self] in
            let result = state.withLock { s -> USBPipeResult in
                guard s.running else { return .gone }
                guard setup.kind == 2 else { return s.usb.handle(setup, data: data) }
                s.counters.vendorRequests += 1
                return Self.vendor(setup, &s)
            }
            completion(result)
        }
    }

    /// FTDI's vendor requests (SIO_*, as libftdi's ftdi_i.h numbers them), wIndex the
    /// interface (1 for the FT232H's only one, A).
    private static func vendor(_ r: USBSetupPacket, _ s: inout State) -> USBPipeResult {
        let inLength = Int(r.length)
        switch (r.request, r.isDeviceToHost) {
        case (0x00, false):  // SIO_RESET: 0 reset, 1 purge RX (to the host), 2 purge TX (from the host)
            switch r.value {
            case 0:
                s.outbound = []
                s.engine.purge()
            case 1: s.outbound = []
            case 2: s.engine.purge()
            default: return .stall
            }
            return .done([])
        case (0x01, false), (0x02, false), (0x03, false), (0x04, false), (0x06, false), (0x07, false):
            // Modem control, flow control, baud rate, data format, event and error
            // characters: UART settings, taken (MPSSE ignores them).
            return .done([])
        case (0x05, true):  // SIO_POLL_MODEM_STATUS
            return .done(Array(modemStatus.prefix(inLength)))
        case (0x09, false):  // SIO_SET_LATENCY_TIMER: 1...255 ms
            let ms = UInt8(truncatingIfNeeded: r.value)
            guard ms > 0 else { return .stall }
            s.latencyMilliseconds = ms
            return .done([])
        case (0x0A, true):  // SIO_GET_LATENCY_TIMER
            return .done(Array([s.latencyMilliseconds].prefix(inLength)))
        case (0x0B, false):  // SIO_SET_BITMODE: mode in the high byte, pin mask in the low
            let mode = UInt8(truncatingIfNeeded: r.value >> 8)
            s.bitMask = UInt8(truncatingIfNeeded: r.value)
            switch mode {
            case 0x00:
                s.mpsse = false
                s.engine.reset()
            case 0x02:
                s.mpsse = true
                s.engine.reset()
            default: return .stall  // bit-bang, sync FIFO, ...: not modelled
            }
            return .done([])
        case (0x0C, true):  // SIO_READ_PINS
            return .done(Array([s.engine.pinsForReadPins].prefix(inLength)))
        case (0x90, true):  // SIO_READ_EEPROM: no EEPROM fitted, every word reads erased
            return .done(Array([0xFF, 0xFF].prefix(inLength)))
        case (0x91, false), (0x92, false):  // EEPROM write / erase: nothing fitted
            return .done([])
        default:
            return .stall
        }
    }

    func bulkOut(endpoint: UInt8, data: [UInt8], completion: @escaping @Sendable (USBPipeResult) -> Void) {
        processor.async { [self] in execute(endpoint: endpoint, data: data, completion: completion) }
    }

    private func execute(endpoint: UInt8, data: [UInt8], completion: @escaping @Sendable (USBPipeResult) -> Void) {
        let result = state.withLock { s -> USBPipeResult in
            guard s.running else { return .gone }
            guard endpoint == FT232HIdentity.bulkOut, s.usb.isConfigured else { return .stall }
            s.counters.bytesOut += data.count
            guard s.mpsse else { return .done([]) }
            s.catchUpChip(nowMicroseconds: RealTimeExecutor.monotonicMicroseconds())
            s.outbound += s.engine.execute(data)
            if s.engine.flushRequested || s.outbound.count >= FT232HIdentity.packetSize - Self.modemStatus.count {
                s.immediate = true
                s.engine.flushRequested = false
            }
            s.log += s.engine.target.drainLog()
            return .done([])
        }
        completion(result)
        queue.async { [self] in deliver() }
    }

    func setPolling(endpoint: UInt8, active: Bool) {
        guard endpoint == FT232HIdentity.bulkIn else { return }
        state.withLock { $0.polled = active }
        if active { queue.async { [self] in deliver() } }
    }

    func powerOff() {
        state.withLock { s in
            s.running = false
            s.polled = false
            // Unpowered, the pins float: EN's pull-down puts the chip in shutdown.
            s.engine.reset()
        }
    }

    // MARK: bulk IN (the device's queue)

    /// The host polls: answers flushed by a send-immediate (or a full packet) go out
    /// now; otherwise the latency timer runs, and when it runs out whatever waits goes,
    /// or the status bytes alone.
    private func deliver() {
        let (host, packets, idle) = state.withLock { s -> ((any USBHostPort)?, [[UInt8]], (generation: Int, ms: UInt8)?) in
            guard s.running, s.polled, s.usb.isConfigured else { return (nil, [], nil) }
            guard s.immediate else {
                guard !s.timerArmed else { return (nil, [], nil) }
                s.timerArmed = true
                return (s.host, [], (s.generation, s.latencyMilliseconds))
            }
            return (s.host, Self.takePackets(&s), nil)
        }
        guard let host else { return }
        for p in packets { host.received(.packet(p), endpoint: FT232HIdentity.bulkIn) }
        if let idle {
            queue.asyncAfter(deadline: .now() + .milliseconds(Int(idle.ms))) { [self] in
                // The latency timer ran out: what is waiting goes, or the status bytes alone.
                let packets = state.withLock { s -> [[UInt8]] in
                    s.timerArmed = false
                    guard s.running, s.polled, s.generation == idle.generation else { return [] }
                    return Self.takePackets(&s)
                }
                for p in packets { host.received(.packet(p), endpoint: FT232HIdentity.bulkIn) }
                // Still polled: the timer runs again.
                if state.withLock({ $0.polled && $0.running }) { deliver() }
            }
        }
    }

    /// Everything waiting, as IN packets each starting with the modem status (the
    /// status bytes alone when nothing waits).
    private static func takePackets(_ s: inout State) -> [[UInt8]] {
        let payload = FT232HIdentity.packetSize - modemStatus.count
        var packets: [[UInt8]] = []
        var rest = s.outbound[...]
        while !rest.isEmpty {
            packets.append(modemStatus + rest.prefix(payload))
            rest = rest.dropFirst(payload)
        }
        // A full last packet (or none) does not end the transfer: the status bytes alone do.
        if packets.isEmpty || packets.last?.count == FT232HIdentity.packetSize { packets.append(modemStatus) }
        s.counters.bytesIn += s.outbound.count
        s.outbound = []
        s.immediate = false
        s.generation += 1
        return packets
    }
}
