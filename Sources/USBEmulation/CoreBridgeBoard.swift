import Actuators
import BridgeProtocol
import Foundation
import RealTime
import SimulatedBoard
import Synchronization

/// The bridge board backed by the firmware core in process (`SimulatedBoard`: the core
/// compiled for the host, the DRV2605 model, actuator physics), in real time: the board
/// clock is the host's monotonic clock since power-up. A thread of its own advances
/// the board to "now" every `tickMicroseconds` (and at once when the host sends), so
/// the core's timer runs each command at its exact stamp in board time; in host time
/// a command runs up to one tick late.
///
/// Its USB side is the ATmega32U4 port's, answered in Swift: the descriptors of
/// `USBIdentity` (usb_identity.h, the firmware's own) with this board's serial number,
/// standard requests only (`StandardRequests`, answering as usb.c does), bulk OUT into
/// `hb_core_receive` packet by packet, bulk IN through the port's ring and bank
/// (`PortBulkIn`: frames that do not fit are dropped, as on the board). Nothing moves
/// on the bulk endpoints before SET_CONFIGURATION, as on the board.
///
/// At protocol 1.0 a `LegacyProtocolFilter` sits between the USB side and the core,
/// and the device descriptor carries firmware 0.1's bcdDevice.
///
/// The port's bootloader jump (ENTER_BOOTLOADER) detaches the board and stops the
/// core: the emulation puts the board's Caterina bootloader on its port, and a fresh
/// core boots when the bootloader is left.
final class CoreBridgeBoard: USBDeviceModel {
    /// Longest time between two advances of the board (µs) while the host polls bulk
    /// IN or bytes wait for it.
    static let tickMicroseconds: UInt64 = 500
    /// The same while the host neither polls nor sends (a board nobody has open): the
    /// firmware still runs every stamp at its board time, and the log's times are board
    /// times, so only when its lines are written moves. 126 idle boards waking every
    /// 500 µs were 250,000 wake-ups a second, more than this machine's two cores had,
    /// and `list` across them took minutes.
    static let idleTickMicroseconds: UInt64 = 20_000

    private let boardConfiguration: SimulatedBoard.Configuration
    /// Answers as firmware 0.1 (protocol 1.0) did (`LegacyProtocolFilter`).
    private let legacy: Bool
    private let events: @Sendable (BoardEvent) -> Void
    private let wakeup = Wakeup()
    private let state: Mutex<State>
    private let finished = Wakeup()
    /// Held from deciding what bulk IN answers to handing it to the host, and by every
    /// control request: a STALL decided before a clear-halt must not reach the host
    /// after it (it would fail the next transfer on a cleared endpoint).
    private let delivery = Mutex(())

    private struct State {
        var host: (any USBHostPort)?
        var usb: StandardRequests
        var inbox: [Inbound] = []
        var bulkIn = PortBulkIn()
        var polling: Set<UInt8> = []
        var running = true
        /// A freeze asked for (`freeze`), µs of the monotonic clock: from, until.
        var freeze: (from: UInt64, until: UInt64)?
    }

    /// A bulk OUT transfer waiting for the board, with when it reached the device.
    private struct Inbound {
        var bytes: [UInt8]
        var submittedHostMicroseconds: UInt64
        var completion: @Sendable (USBPipeResult) -> Void
        /// Where the board got to, for a transfer it held part way (flow control):
        /// the bytes as the board takes them (after the legacy filter), and how many.
        var taking: (bytes: [UInt8], offset: Int)?
    }

    init(
        serial: String, boardConfiguration: SimulatedBoard.Configuration, protocolVersion: BridgeEmulation.ProtocolVersion,
        events: @escaping @Sendable (BoardEvent) -> Void
    ) throws(EmulationError) {
        let serialNumber: BoardSerialNumber
        do { serialNumber = try BoardSerialNumber(serial) } catch { throw .invalidSerial(error.description) }
        let legacy = protocolVersion == .v1_0
        let usb = try StandardRequests.bridgeBoard(serial: serial, bcdDevice: legacy ? LegacyProtocolFilter.bcdDevice : nil)
        var configuration = boardConfiguration
        // HELLO_REPLY carries the same serial as the string descriptor, as on the board.
        configuration.serialNumber = serialNumber
        // Hours of real time: no acceleration trace, and the I2C log is drained each tick.
        configuration.recordsAcceleration = false
        self.boardConfiguration = configuration
        self.legacy = legacy
        self.events = events
        state = Mutex(State(usb: usb))
        let thread = Thread { [self] in run() }
        thread.name = "hapbridge core board \(serial)"
        thread.start()
    }

    // MARK: USBDeviceModel (any thread)

    func connect(to host: any USBHostPort) {
        state.withLock { $0.host = host }
    }

    func busReset(completion: @escaping @Sendable () -> Void) {
        state.withLock { s in
            s.usb.reset()
            s.bulkIn.reset()  // the port clears its ring when configured again
        }
        completion()
    }

    func control(_ setup: USBSetupPacket, data: [UInt8], completion: @escaping @Sendable (USBPipeResult) -> Void) {
        let result = delivery.withLock { _ in
            state.withLock { s -> USBPipeResult in
                guard s.running else { return .gone }
                let wasConfigured = s.usb.isConfigured
                let r = s.usb.handle(setup, data: data)
                guard r != .stall else { return r }
                // SET_CONFIGURATION resets the bulk endpoints: the port empties its IN ring.
                if setup.request == StandardRequest.setConfiguration && (s.usb.isConfigured || wasConfigured) {
                    s.bulkIn.reset()
                }
                // Clearing bulk IN's halt resets the endpoint (usb.c, endpoint_halt).
                if setup.request == StandardRequest.clearFeature && setup.recipient == 2
                    && UInt8(truncatingIfNeeded: setup.index) == USBIdentity.bulkIn
                {
                    s.bulkIn.resetEndpoint()
                }
                return r
            }
        }
        completion(result)
        wakeup.signal()
    }

    func bulkOut(endpoint: UInt8, data: [UInt8], completion: @escaping @Sendable (USBPipeResult) -> Void) {
        let accepted = state.withLock { s -> USBPipeResult? in
            guard s.running else { return .gone }
            guard endpoint == USBIdentity.bulkOut else { return .stall }
            s.inbox.append(Inbound(bytes: data, submittedHostMicroseconds: RealTimeExecutor.monotonicMicroseconds(), completion: completion))
            return nil
        }
        if let accepted { return completion(accepted) }
        wakeup.signal()
    }

    func setPolling(endpoint: UInt8, active: Bool) {
        state.withLock { s in
            if active { s.polling.insert(endpoint) } else { s.polling.remove(endpoint) }
        }
        if active { wakeup.signal() }
    }

    func powerOff() {
        let pending = state.withLock { s in
            s.running = false
            defer { s.inbox = [] }
            return s.inbox.map(\.completion)
        }
        wakeup.signal()
        for c in pending { c(.gone) }
        finished.wait(microseconds: 2_000_000)  // the thread's last tick
    }

    // MARK: the board's thread (and its freeze)

    private func run() {
        let board = SimulatedBoard(configuration: boardConfiguration)
        // The core sends its sensor's frames only where the port's ring has room for
        // them, as on the board (hooks.h, send_room).
        board.transmitRoom = { [weak self] in self?.state.withLock { $0.bulkIn.unpromptedRoom } ?? .max }
        var filter = legacy ? LegacyProtocolFilter() : nil
        let origin = RealTimeExecutor.monotonicMicroseconds()
        defer { finished.signal() }
        while true {
            let taken = state.withLock { s -> [Inbound]? in
                guard s.running else { return nil }
                // Host bytes wait in the bank (NAKed) until the board is configured; a
                // halted endpoint STALLs them.
                guard s.usb.isConfigured else { return [] }
                defer { s.inbox = [] }
                return s.inbox
            }
            guard let taken else { return }
            if let freeze = state.withLock({ s in defer { s.freeze = nil }; return s.freeze }) {
                // The timer held through the freeze (the core runs nothing due in it),
                // the intake too: what the host sends waits in the bank.
                board.timerHold = (freeze.from - origin)..<(freeze.until - origin)
                state.withLock { s in s.inbox = taken + s.inbox }
                while RealTimeExecutor.monotonicMicroseconds() < freeze.until, state.withLock({ $0.running }) {
                    wakeup.wait(microseconds: freeze.until - RealTimeExecutor.monotonicMicroseconds())
                }
                continue
            }
            let now = RealTimeExecutor.monotonicMicroseconds()
            // The board runs to each transfer's arrival before taking it, then to now: a
            // board's USB interrupt takes bytes as they come, so a thread of this process
            // held off the CPU for a while (a loaded host) must not have the board's
            // watchdog see host silence where frames were waiting (the keep-alive's STOP).
            func advance(toHost host: UInt64) -> Bool {
                do { try board.advance(to: max(board.time, host > origin ? host - origin : 0)) } catch {
                    events(.failed("the firmware core stopped: \(error)"))
                    return false
                }
                report(board, origin: origin, filter: &filter)  // what the timer sent meanwhile
                return true
            }
            var held: [Inbound] = []
            for var t in taken {
                if !held.isEmpty {
                    held.append(t)
                    continue
                }
                guard advance(toHost: min(t.submittedHostMicroseconds, now)) else { return }
                let halted = state.withLock { $0.usb.halted.contains(USBIdentity.bulkOut) }
                if halted { t.completion(.stall); continue }
                // Packet by packet, as the port's main loop takes them: each packet's
                // replies go to the ring, then the bank takes a packet of the ring. The
                // host takes nothing between two packets of one transfer (on the wire
                // its next OUT packet is usually sooner than its next IN token), so no
                // more fits than on a board — and, as on a board, a packet waits in the
                // bank while the ring lacks room for the NAKs it can draw (usb.c's flow
                // control): the host reads bulk IN meanwhile, or the transfer waits.
                let bytes = t.taking?.bytes ?? filter?.hostToBoard(t.bytes) ?? t.bytes
                var offset = t.taking?.offset ?? 0
                while offset < bytes.count {
                    if state.withLock({ $0.bulkIn.room }) < PortBulkIn.outReplyRoom {
                        deliver()
                        if state.withLock({ $0.bulkIn.room }) < PortBulkIn.outReplyRoom { break }
                    }
                    let n = min(PortBulkIn.packetSize, bytes.count - offset)
                    board.send(Array(bytes[offset..<(offset + n)]))
                    report(board, origin: origin, filter: &filter)
                    offset += n
                }
                if offset < bytes.count {
                    t.taking = (bytes, offset)
                    held.append(t)
                    continue
                }
                events(
                    .bulkOut(
                        boardMicroseconds: Double(board.boardTime), hostMicroseconds: origin + board.time,
                        submittedHostMicroseconds: t.submittedHostMicroseconds, bytes: t.bytes))
                t.completion(.done([]))
            }
            // What the board held back goes first next time, in order.
            if !held.isEmpty { state.withLock { s in s.inbox = held + s.inbox } }
            guard advance(toHost: now) else { return }
            if board.bootloaderEntries > 0 {
                // The jump: the board leaves the bus and its bootloader takes the port
                // (`BridgeEmulation` plugs the emulated Caterina there and powers this
                // model off); the core runs no more.
                flushBeforeDetach()
                events(.left(reason: "bootloader"))
                return
            }
            let hostActive = deliver()
            wakeup.wait(microseconds: hostActive ? Self.tickMicroseconds : Self.idleTickMicroseconds)
        }
    }

    /// The port's usb_flush before the bootloader jump detaches it: the host gets the
    /// ACK if it takes it within the bound.
    private func flushBeforeDetach() {
        let deadline = RealTimeExecutor.monotonicMicroseconds() + Self.flushBoundMicroseconds
        while !state.withLock({ $0.bulkIn.isEmpty }) && RealTimeExecutor.monotonicMicroseconds() < deadline {
            let hostActive = deliver()
            wakeup.wait(microseconds: hostActive ? Self.tickMicroseconds : Self.idleTickMicroseconds)
        }
    }

    /// How long the ATmega32U4 port's usb_flush waits for the host (usb.c, FLUSH_ROUNDS).
    static let flushBoundMicroseconds: UInt64 = 25_000

    /// Frames to the IN ring (those that do not fit are dropped, as `usb_send` drops
    /// them) and a packet of it to the bank, I2C transactions to the log.
    private func report(_ board: SimulatedBoard, origin: UInt64, filter: inout LegacyProtocolFilter?) {
        var frames = board.receivedFrames()
        if var f = filter {
            frames = frames.map { f.boardToHost($0) }
            filter = f
        }
        state.withLock { s in
            for f in frames { s.bulkIn.send(f) }
            s.bulkIn.fillBank()
        }
        for t in board.i2cLog {
            events(
                .i2c(
                    boardMicroseconds: Double(t.boardTime), stopBoardMicroseconds: nil, hostMicroseconds: origin + t.time,
                    isWrite: t.kind == .write, address: t.address, bytes: t.bytes, acknowledged: t.acknowledged))
        }
        board.clearI2CLog()
    }

    /// The host polls bulk IN: the bank's packet goes out, and the ring's after it as
    /// the bank refills. Returns whether the host is active (polling, or bytes wait
    /// either way).
    @discardableResult
    private func deliver() -> Bool {
        delivery.withLock { _ in deliverLocked() }
    }

    private func deliverLocked() -> Bool {
        let (host, packets, active) = state.withLock { s -> ((any USBHostPort)?, [USBInEvent], Bool) in
            let active = !s.polling.isEmpty || !s.inbox.isEmpty || !s.bulkIn.isEmpty
            guard s.usb.isConfigured, s.polling.contains(USBIdentity.bulkIn) else { return (nil, [], active) }
            if s.usb.halted.contains(USBIdentity.bulkIn) { return (s.host, [.stall], active) }
            var packets: [USBInEvent] = []
            while let packet = s.bulkIn.take() { packets.append(.packet(packet)) }
            return (s.host, packets, active)
        }
        guard let host else { return active }
        for p in packets { host.received(p, endpoint: USBIdentity.bulkIn) }
        return active
    }
}

extension CoreBridgeBoard: FreezableBoard {
    func freeze(forMicroseconds microseconds: UInt64) {
        let now = RealTimeExecutor.monotonicMicroseconds()
        state.withLock { $0.freeze = (now, now + microseconds) }
        wakeup.signal()
    }
}
