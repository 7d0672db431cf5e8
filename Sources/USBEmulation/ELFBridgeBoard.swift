import DRV2605Model
import EmulationControl
import Foundation
import Glibc
import Hex
import RealTime
import SensorModel
import SimavrBridgeDevice
import Synchronization

/// The bridge board backed by the real firmware ELF under simavr: a `sim-harness
/// --usb` child (Firmware/sim/usb_serve.c) runs the ATmega32U4 cycle by cycle, paced
/// to the host's clock, with this board's serial number in its EEPROM. Every
/// transfer is forwarded as it is — control transfers to the firmware's own USB stack
/// (so the descriptors libusb reads are the ones the firmware returns), bulk OUT as
/// 64-byte packets its endpoint may NAK, bulk IN as the packets the harness reads
/// while the host polls — and the firmware's I2C traffic and reboots come back as
/// events.
///
/// The DRV2605 on the firmware's TWI bus is the behavioural chip model with the
/// actuator on its outputs (`HarnessChip`, `--chip host`), as on the core backing: the
/// harness forwards each transaction at its simulated time and waits for each byte
/// read, which this board's reader thread answers (it owns the chip).
///
/// Bulk OUT transfers go to the harness one at a time per endpoint, in order, as
/// they go over the wire.
final class ELFBridgeBoard: USBDeviceModel {
    /// The longest wait for the harness to boot the firmware.
    static let readySeconds: Double = 30
    /// SCHED_FIFO priority the harness asks for (granted to root): above every normal
    /// process, so a busy machine does not make the simulation lag the wall clock, and
    /// below the one a HapticEngine asks for its service thread, which it must not
    /// delay. Refused, the harness runs at normal priority.
    static let harnessFIFOPriority = 10

    private let child: ChildProcess
    private let socket: Int32
    /// What is wired to the chip's outputs (the chip itself lives on the reader thread).
    private let load: Load
    /// The LIS3DH on the sled, if one is fitted (`sim-harness --accel`).
    private let accelerometer: LIS3DHChip.Mounting?
    private let events: @Sendable (BoardEvent) -> Void
    private let state: Mutex<State>
    private let ready = DispatchSemaphore(value: 0)
    private let readerDone = DispatchSemaphore(value: 0)

    private struct PendingOut {
        var id: Int
        var endpoint: UInt8
        var data: [UInt8]
        var submittedHostMicroseconds: UInt64
        var completion: @Sendable (USBPipeResult) -> Void
    }

    private struct State {
        var host: (any USBHostPort)?
        var nextID = 1
        var controls: [Int: @Sendable (USBPipeResult) -> Void] = [:]
        var resets: [Int: @Sendable () -> Void] = [:]
        /// Bulk OUT transfers per endpoint, the first one at the harness.
        var outs: [UInt8: [PendingOut]] = [:]
        var polling: Set<UInt8> = []
        var isReady = false
        var stopping = false
        var closed = false
        /// Lines that were not protocol lines (simavr's own messages), for errors.
        var diagnostics: [String] = []

        mutating func id() -> Int {
            defer { nextID += 1 }
            return nextID
        }
    }

    /// `application`: the application section a bootloader wrote (flash from 0x0000),
    /// booted instead of the ELF's own image (`sim-harness --application`).
    init(
        artifacts: SimavrBridgeDevice.Artifacts, load: Load, accelerometer: LIS3DHChip.Mounting? = nil, serial: String, name: String,
        application: [UInt8]? = nil, eeprom: [UInt8]? = nil, events: @escaping @Sendable (BoardEvent) -> Void
    ) throws(EmulationError) {
        // The harness reads the files before it says "ready"; they go when this returns.
        var applicationFile: String?
        var eepromFile: String?
        defer {
            if let applicationFile { unlink(applicationFile) }
            if let eepromFile { unlink(eepromFile) }
        }
        func temporary(_ bytes: [UInt8], _ what: String) throws(EmulationError) -> String {
            var template = Array((FileManager.default.temporaryDirectory.path + "/hapbridge-\(what)-XXXXXX").utf8CString)
            let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
            guard fd >= 0 else { throw .harness("cannot make a file for the board's \(what): \(String(cString: strerror(errno)))") }
            let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            close(fd)
            guard written == bytes.count else {
                unlink(path)
                throw .harness("cannot write the board's \(what) to \(path)")
            }
            return path
        }
        if let application { applicationFile = try temporary(application, "application") }
        // The EEPROM as the board holds it (its serial record; what `flash --serial` wrote).
        if let eeprom { eepromFile = try temporary(eeprom, "eeprom") }
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw .harness("socketpair failed: \(String(cString: strerror(errno)))")
        }
        // The child's end is dup2'ed onto its stdio (which clears close-on-exec there).
        let spawned = ChildProcess.spawn(
            [artifacts.harness, "--usb", artifacts.firmware, "--serial", serial, "--fifo-priority", String(Self.harnessFIFOPriority)]
                + HarnessChip.harnessArguments(accelerometerAddress: accelerometer.map { _ in LIS3DHChip.defaultAddress })
                + (applicationFile.map { ["--application", $0] } ?? [])
                + (eepromFile.map { ["--eeprom", $0] } ?? []),
            stdio: fds[1], ownGroup: true)
        close(fds[1])
        switch spawned {
        case .success(let c): child = c
        case .failure(let f):
            close(fds[0])
            throw .harness("cannot start \(artifacts.harness): \(f.message)")
        }
        socket = fds[0]
        self.load = load
        self.accelerometer = accelerometer
        self.events = events
        state = Mutex(State())
        let thread = Thread { [self] in readLines() }
        thread.name = "hapbridge sim-harness \(name)"
        thread.start()
        guard ready.wait(timeout: .now() + Self.readySeconds) == .success, state.withLock({ $0.isReady }) else {
            let said = state.withLock { $0.diagnostics.suffix(4).joined(separator: " | ") }
            powerOff()
            throw .harness("sim-harness --usb \(artifacts.firmware) did not boot the firmware\(said.isEmpty ? "" : ": it said: " + said)")
        }
    }

    // MARK: USBDeviceModel

    func connect(to host: any USBHostPort) {
        state.withLock { $0.host = host }
    }

    func busReset(completion: @escaping @Sendable () -> Void) {
        let id = state.withLock { s -> Int? in
            guard !s.closed else { return nil }
            let id = s.id()
            s.resets[id] = completion
            return id
        }
        guard let id else { return completion() }
        send("busreset \(id)")
    }

    func control(_ setup: USBSetupPacket, data: [UInt8], completion: @escaping @Sendable (USBPipeResult) -> Void) {
        let id = state.withLock { s -> Int? in
            guard !s.closed else { return nil }
            let id = s.id()
            s.controls[id] = completion
            return id
        }
        guard let id else { return completion(.gone) }
        send("control \(id) \(Hex.bytes(setup.bytes, case: .lower))" + (data.isEmpty ? "" : " \(Hex.bytes(data, case: .lower))"))
    }

    func bulkOut(endpoint: UInt8, data: [UInt8], completion: @escaping @Sendable (USBPipeResult) -> Void) {
        guard !data.isEmpty else { return completion(.done([])) }  // a zero-length packet carries nothing to the firmware
        let submitted = RealTimeExecutor.monotonicMicroseconds()
        let first = state.withLock { s -> PendingOut?? in
            guard !s.closed else { return .none }
            let out = PendingOut(id: s.id(), endpoint: endpoint, data: data, submittedHostMicroseconds: submitted, completion: completion)
            s.outs[endpoint, default: []].append(out)
            return .some(s.outs[endpoint]?.count == 1 ? out : nil)
        }
        switch first {
        case .none: completion(.gone)
        case .some(let out?): sendOut(out)
        case .some(nil): break  // queued behind the transfer at the harness
        }
    }

    func setPolling(endpoint: UInt8, active: Bool) {
        let changed = state.withLock { s -> Bool in
            guard !s.closed else { return false }
            return active ? s.polling.insert(endpoint).inserted : s.polling.remove(endpoint) != nil
        }
        if changed { send("poll \(endpoint & 0x0F) \(active ? "on" : "off")") }
    }

    func powerOff() {
        let first = state.withLock { s -> Bool in
            defer { s.stopping = true }
            return !s.stopping
        }
        if first {
            send("quit")
            shutdown(socket, Int32(SHUT_WR))
        }
        if readerDone.wait(timeout: .now() + 2) != .success {
            child.send(SIGKILL)
            _ = readerDone.wait(timeout: .now() + 2)
        }
        readerDone.signal()  // for a second caller
        for _ in 0..<200 where !child.hasExited() { usleep(5000) }
        if !child.hasExited() {
            child.send(SIGKILL)
            _ = child.wait()
        }
    }

    // MARK: the harness's lines

    /// A line of the host's side of the bus (a transfer, a reset, polling), stamped
    /// with when it was sent: the harness carries it out when simulated time reaches
    /// that moment, never earlier (Firmware/sim/usb_serve.c, "lines stamped with the
    /// host's clock"). Handed in at once, a packet reached a simulation that had fallen
    /// behind the wall clock early in the board's own clock: the host's clock sync took
    /// the lag for the clocks' offset and, once the simulation caught up, stamped
    /// commands that reached the board after their stamps (underruns of the
    /// emulation's, reported as the board's).
    private func send(_ line: String) {
        _ = writeAll(socket, "@\(RealTimeExecutor.monotonicMicroseconds()) " + line + "\n")
    }

    /// A reply the harness is waiting for (a chip or sensor read): at once, unstamped.
    private func reply(_ line: String) {
        _ = writeAll(socket, line + "\n")
    }

    private func sendOut(_ out: PendingOut) {
        send("out \(out.id) \(out.endpoint & 0x0F) \(Hex.bytes(out.data, case: .lower))")
    }

    private func readLines() {
        // The harness waits on this thread for every chip read (the chip lives here):
        // at the harness's own priority, a busy machine delays neither.
        _ = ThreadScheduling.adoptForCurrentThread(priority: Int32(Self.harnessFIFOPriority))
        var reader = LineReader(fd: socket)
        // Hours of real time, as on the core backing: no acceleration trace.
        let chip = HarnessChip(load: load, recordsAcceleration: false, accelerometer: accelerometer)
        // Everything but the chip's lines is handled in order on a thread of its own:
        // a chip read then waits for its answer only, not for the lines before it
        // (the emulation's log, bulk transfers), which stalled the simulation. That
        // thread completes the bulk transfers (IN packets, OUT done), so it runs at the
        // harness's priority too: at normal priority a loaded host held it for tens of
        // ms while the simulation ran on, paced to the wall clock, and the firmware saw
        // its host stop reading (its IN ring full, bulk OUT held, the sensor's FIFO
        // overrun) and commands arrive after their stamps: underruns and engine-start
        // time-outs that were the emulation's, reported as the board's.
        let handling = RealTimeExecutor(name: "sim-harness lines", priority: Int32(Self.harnessFIFOPriority))
        while let line = reader.next() {
            if HarnessChip.isPeerLine(line), let reply = chip.answer(line) {
                if !reply.isEmpty { self.reply(reply) }  // the harness waits for it
                continue
            }
            handling.schedule(atMicroseconds: 0) { [self] in handle(line) }
        }
        let drained = DispatchSemaphore(value: 0)
        handling.schedule(atMicroseconds: 0) { drained.signal() }
        drained.wait()
        handling.shutdown()
        close(socket)
        closeAll()
        readerDone.signal()
    }

    /// The harness is gone (it quit or died): everything still waiting fails as a
    /// vanished device would; an unexpected exit is reported.
    private func closeAll() {
        let (controls, resets, outs, stopping, said) = state.withLock { s in
            s.closed = true
            defer {
                s.controls = [:]
                s.resets = [:]
                s.outs = [:]
            }
            return (Array(s.controls.values), Array(s.resets.values), s.outs.values.flatMap { $0 }, s.stopping, s.diagnostics.suffix(4))
        }
        controls.forEach { $0(.gone) }
        resets.forEach { $0() }
        outs.forEach { $0.completion(.gone) }
        ready.signal()
        if !stopping {
            events(.failed("sim-harness exited" + (said.isEmpty ? "" : "; it said: " + said.joined(separator: " | "))))
        }
    }

    private func handle(_ line: String) {
        let words = line.split(separator: " ", omittingEmptySubsequences: true)
        guard let kind = words.first else { return }
        switch kind {
        case "control" where words.count >= 3:
            guard let id = Int(words[1]), let completion = state.withLock({ $0.controls.removeValue(forKey: id) }) else { return note(line) }
            switch words[2] {
            case "ok": completion(.done(words.count > 3 ? Hex.decode(words[3]) ?? [] : []))
            case "stall": completion(.stall)
            default: completion(.gone)
            }
        case "out" where words.count >= 3:
            guard let id = Int(words[1]) else { return note(line) }
            outFinished(id: id, result: words[2] == "ok" ? .done([]) : words[2] == "stall" ? .stall : .gone, words: words)
        case "busreset" where words.count >= 3:
            guard let id = Int(words[1]), let completion = state.withLock({ $0.resets.removeValue(forKey: id) }) else { return note(line) }
            completion()
        case "in" where words.count == 3:
            guard let ep = UInt8(words[1]), let host = state.withLock({ $0.host }) else { return note(line) }
            if words[2] == "stall" {
                host.received(.stall, endpoint: ep)
            } else if let bytes = Hex.decode(words[2]) {
                host.received(.packet(bytes), endpoint: ep)
            }
        case "i2c" where words.count == 7:
            guard let start = Double(words[1]), let stop = Double(words[2]), let hostUS = UInt64(words[3]),
                let address = Hex.value(words[5], as: UInt8.self), let bytes = Hex.decode(words[6])
            else { return note(line) }
            events(
                .i2c(
                    boardMicroseconds: start, stopBoardMicroseconds: stop, hostMicroseconds: hostUS, isWrite: words[4] == "w",
                    address: address, bytes: bytes, acknowledged: true))
        case "ready":
            state.withLock { $0.isReady = true }
            ready.signal()
        case "detach":
            state.withLock { $0.polling = [] }
            events(.left(reason: "detached"))
        case "reboot":
            state.withLock { $0.polling = [] }
            events(.returned(reason: "watchdog reset"))
        case "bye":
            break
        default:
            note(line)
        }
    }

    /// A bulk OUT transfer ended: report it, then start the next one on its endpoint.
    private func outFinished(id: Int, result: USBPipeResult, words: [Substring]) {
        let (done, next) = state.withLock { s -> (PendingOut?, PendingOut?) in
            for (ep, queue) in s.outs {
                guard let first = queue.first, first.id == id else { continue }
                s.outs[ep]?.removeFirst()
                return (first, s.outs[ep]?.first)
            }
            return (nil, nil)
        }
        guard let done else { return }
        if result == .done([]), words.count >= 5, let boardUS = Double(words[3]), let hostUS = UInt64(words[4]) {
            events(
                .bulkOut(
                    boardMicroseconds: boardUS, hostMicroseconds: hostUS, submittedHostMicroseconds: done.submittedHostMicroseconds,
                    bytes: done.data))
        }
        done.completion(result)
        if let next { sendOut(next) }
    }

    private func note(_ line: String) {
        state.withLock { s in
            s.diagnostics.append(line)
            if s.diagnostics.count > 16 { s.diagnostics.removeFirst() }
        }
    }
}

extension ELFBridgeBoard: FreezableBoard {
    /// The simulator stops (SIGSTOP) and goes on (SIGCONT): paced to the wall clock, it
    /// then runs the simulated time it missed as fast as it can.
    func freeze(forMicroseconds microseconds: UInt64) {
        child.send(SIGSTOP)
        DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(Int(clamping: microseconds))) { [child] in
            child.send(SIGCONT)
        }
    }
}
