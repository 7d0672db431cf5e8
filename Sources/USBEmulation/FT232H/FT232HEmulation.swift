import Actuators
import CUMockdev
import FileAccess
import Foundation
import Glibc
import RealTime
import Synchronization

/// `hapbridge emulate ft232h -- COMMAND`: an FT232H (`FT232HDevice`) on bus 1, port 1,
/// behind real libusb, with a DRV2605L on its I2C pins (SCL AD0, SDA AD1/AD2, EN AD4),
/// while COMMAND runs. libftdi and pyftdi open it as the real one; the MPSSE commands
/// they send run on the emulated pins, and the chip model (with the actuator's physics)
/// sees the I2C transactions bit by bit, in the MPSSE clock's time.
///
/// SIGUSR1 / SIGUSR2 to this process unplug / replug the FT232H (`Socket`). At the
/// end one summary line goes to standard error; with `logPath`, every I2C
/// transaction the chip saw is written there as a JSON line.
///
/// Exit status as `EmulationSession`'s: COMMAND's own, 128 + N for a signal, 126 /
/// 127 when COMMAND could not be run / found; `run` throws when the emulation could
/// not be set up (the caller exits 125).
public enum FT232HEmulation {
    public struct Options: Sendable {
        public var command: [String]
        public var serial: String
        /// The actuator on the chip's outputs (nil: none, the outputs open).
        public var actuator: ActuatorProfile?
        /// False: nothing on the I2C pins answers (every address NACKed).
        public var chipPresent: Bool
        /// How SDA and SCL are wired to the chip: as documented, or a mistake.
        public var busWiring: FT232HBusWiring
        /// Where to write the chip's I2C transactions as JSON lines (nil: nowhere).
        public var logPath: String?

        public init(
            command: [String], serial: String = defaultSerial, actuator: ActuatorProfile? = nil, chipPresent: Bool = true,
            busWiring: FT232HBusWiring = .ok, logPath: String? = nil
        ) {
            self.command = command
            self.serial = serial
            self.actuator = actuator
            self.chipPresent = chipPresent
            self.busWiring = busWiring
            self.logPath = logPath
        }
    }

    public static let defaultSerial = "FT0001"
    static let bus = 1
    static let port = 1
    static let address: UInt8 = 2

    /// The emulated device's threads run SCHED_FIFO at this priority where permitted
    /// (taken before any is started, so every one inherits it; COMMAND is spawned in
    /// the normal class): a real FT232H answers in its own time, not when the host's
    /// load lets a process run. Below the hosted core's timer thread
    /// (`HostedBoard.Configuration.priority`), above the engine's service thread.
    public static let devicePriority: Int32 = 25

    public static func run(_ options: Options) throws(EmulationError) -> Int32 {
        _ = ThreadScheduling.adoptForCurrentThread(priority: devicePriority)
        try Preload.ensureLoaded()
        // Checked before COMMAND runs, written when it has ended.
        let logFile = try options.logPath.map { path throws(EmulationError) in try ResultFile(option: "--log", path: path) }
        let testbed = try Testbed()
        defer { testbed.close() }
        try testbed.add(record: USBRootHubRecord(bus: bus).text)
        let socket = Socket(testbed: testbed, serial: options.serial, wiring: .init(actuator: options.actuator, chipPresent: options.chipPresent, bus: options.busWiring))
        try socket.plug()

        let signals = CommandSignals(hotplug: { socket.signal($0) })
        defer { signals.stop() }
        let status = signals.run(options.command, report: report)
        // Before the socket powers it off: what COMMAND (and whatever it left behind) left the chip doing.
        let final = socket.plugged?.chipState
        socket.close()

        let log = socket.drainLog()
        let c = socket.devices.map(\.counters).reduce(FT232HDevice.Counters()) { a, b in
            FT232HDevice.Counters(vendorRequests: a.vendorRequests + b.vendorRequests, bytesOut: a.bytesOut + b.bytesOut, bytesIn: a.bytesIn + b.bytesIn)
        }
        let e = socket.devices.map(\.engineCounters).reduce((commands: 0, bad: 0, cycles: UInt64(0))) { a, b in
            (a.commands + b.commands, a.bad + b.bad, a.cycles + b.cycles)
        }
        let chipSeconds = socket.devices.map { Double($0.chipNow.microseconds) / 1e6 }.reduce(0, +)
        let plugs = socket.devices.count > 1 ? ", plugged in \(socket.devices.count) times" : ""
        report(
            "ft232h: \(c.vendorRequests) vendor request(s), \(c.bytesOut) byte(s) out, \(c.bytesIn) byte(s) in, \(e.commands) MPSSE command(s), "
                + "\(e.bad) answered with the bad-command echo, \(e.cycles) clock cycle(s) (\(String(format: "%.3f", chipSeconds)) s chip time), "
                + "\(log.count) I2C transaction(s)\(plugs)")
        if let final { report("ft232h: \(final.description)") }
        try logFile?.write(Array(log.map(jsonLine).joined().utf8), signals: signals)
        return status
    }

    /// Bus 1, port 1 and what is plugged into it. An unplugged FT232H loses its power
    /// (its pins float: EN's pull-down shuts the chip down; on a breakout that powers the
    /// chip from USB, the chip loses power too), so a replug is a fresh FT232H and a
    /// freshly powered chip, at the next device address as the kernel gives it; the old
    /// node keeps its handler, answering ENODEV, for a client that still holds it.
    final class Socket: Sendable {
        let testbed: Testbed
        let serial: String
        let wiring: FT232HDevice.Wiring
        private let state = Mutex(State())
        private let queue = DispatchQueue(label: "hapbridge.emulate.ft232h.plug")

        struct State {
            var plugged: (device: FT232HDevice, handler: USBDevFSHandler, record: USBDeviceRecord)?
            var devices: [FT232HDevice] = []
            var nextAddress: UInt8 = FT232HEmulation.address
            var log: [I2CTargetTransaction] = []
        }

        init(testbed: Testbed, serial: String, wiring: FT232HDevice.Wiring) {
            self.testbed = testbed
            self.serial = serial
            self.wiring = wiring
        }

        var devices: [FT232HDevice] { state.withLock { $0.devices } }
        /// The FT232H plugged in now, if one is.
        var plugged: FT232HDevice? { state.withLock { $0.plugged?.device } }

        func plug() throws(EmulationError) {
            guard state.withLock({ $0.plugged == nil }) else { throw .boardState("the FT232H is already plugged in") }
            let address = state.withLock { s in
                defer { s.nextAddress = s.nextAddress == 127 ? 2 : s.nextAddress + 1 }
                return s.nextAddress
            }
            let device = try FT232HDevice(serial: serial, wiring: wiring)
            let (record, handler) = try testbed.plug(device, bus: bus, port: port, address: address, board: "\(bus)-\(port)")
            state.withLock { s in
                s.plugged = (device, handler, record)
                s.devices.append(device)
            }
        }

        /// Off the bus: transfers in flight end with -ESHUTDOWN, further calls ENODEV,
        /// then "remove" uevents, the interface first.
        func unplug() throws(EmulationError) {
            guard let p = state.withLock({ s in defer { s.plugged = nil }; return s.plugged }) else {
                throw .boardState("the FT232H is not plugged in")
            }
            p.handler.disconnect()
            for path in p.record.interfaceSyspaths.reversed() {
                testbed.uevent(path, "remove")
                testbed.remove(path)
            }
            testbed.uevent(p.record.syspath, "remove")
            testbed.remove(p.record.syspath)
            p.device.powerOff()
            let seen = p.device.drainLog()
            state.withLock { $0.log += seen }
        }

        /// SIGUSR1 / SIGUSR2: unplug / replug, one line on standard error either way.
        func signal(_ signal: Int32) {
            queue.async { [self] in
                do throws(EmulationError) {
                    if signal == SIGUSR1 {
                        try unplug()
                        report("ft232h unplugged")
                    } else {
                        try plug()
                        report("ft232h plugged in again")
                    }
                } catch { report("\(error)") }
            }
        }

        func close() {
            queue.sync { try? unplug() }
        }

        func drainLog() -> [I2CTargetTransaction] {
            state.withLock { s in
                defer { s.log = [] }
                return s.log
            }
        }
    }

    /// One transaction: {"chip_us":…,"host_us":…,"address":90,"read":false,"ack":true,"bytes":[1,0]}.
    static func jsonLine(_ t: I2CTargetTransaction) -> String {
        "{\"chip_us\":\(t.chipMicroseconds),\"host_us\":\(t.hostMicroseconds),\"address\":\(t.address),\"read\":\(t.isRead),\"ack\":\(t.acknowledged),"
            + "\"bytes\":[\(t.bytes.map(String.init).joined(separator: ","))]}\n"
    }

    private static func report(_ line: String) {
        FileHandle.standardError.write(Data("hapbridge emulate: \(line)\n".utf8))
    }
}
