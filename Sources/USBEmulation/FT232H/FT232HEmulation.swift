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
/// At the end one summary line goes to standard error; with `logPath`, every I2C
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
        /// Where to write the chip's I2C transactions as JSON lines (nil: nowhere).
        public var logPath: String?

        public init(command: [String], serial: String = defaultSerial, actuator: ActuatorProfile? = nil, chipPresent: Bool = true, logPath: String? = nil) {
            self.command = command
            self.serial = serial
            self.actuator = actuator
            self.chipPresent = chipPresent
            self.logPath = logPath
        }
    }

    public static let defaultSerial = "FT0001"
    static let bus = 1
    static let port = 1
    static let address: UInt8 = 2

    public static func run(_ options: Options) throws(EmulationError) -> Int32 {
        try Preload.ensureLoaded()
        let testbed = try Testbed()
        defer { testbed.close() }
        let device = try FT232HDevice(serial: options.serial, wiring: .init(actuator: options.actuator, chipPresent: options.chipPresent))
        let (description, configuration) = try KernelEnumeration.enumerate(device, address: address, board: "\(bus)-\(port)")
        let record = USBDeviceRecord(bus: bus, port: port, address: Int(address), description: description, configuration: configuration)
        let handler = USBDevFSHandler(
            device: device, description: description, address: address, configuration: configuration,
            configurationChanged: { value in
                testbed.setAttribute(record.syspath, "bConfigurationValue", USBDeviceRecord.configurationAttribute(value))
            })
        device.connect(to: handler)
        try testbed.add(record: USBRootHubRecord(bus: bus).text)
        let ioctl = handler.makeIoctlHandler()
        defer { g_object_unref(ioctl) }  // the testbed keeps its own reference
        try testbed.attach(ioctl, to: record.node)
        try testbed.add(record: record.text)

        let status = runCommand(options.command)
        handler.disconnect()
        device.powerOff()

        let log = device.drainLog()
        let c = device.counters
        let e = device.engineCounters
        let chip = device.chipNow
        report(
            "ft232h: \(c.vendorRequests) vendor request(s), \(c.bytesOut) byte(s) out, \(c.bytesIn) byte(s) in, \(e.commands) MPSSE command(s), "
                + "\(e.bad) answered with the bad-command echo, \(e.cycles) clock cycle(s) (\(String(format: "%.3f", Double(chip.microseconds) / 1e6)) s chip time), \(log.count) I2C transaction(s)")
        if let path = options.logPath {
            let text = log.map(jsonLine).joined()
            do { try FileWriter.write(Array(text.utf8), to: FilePath(path)) } catch {
                throw .log("--log \(TerminalText.echo(path)): \(error)")
            }
        }
        return status
    }

    /// One transaction: {"chip_us":…,"address":90,"read":false,"ack":true,"bytes":[1,0]}.
    static func jsonLine(_ t: I2CTargetTransaction) -> String {
        "{\"chip_us\":\(t.chipMicroseconds),\"address\":\(t.address),\"read\":\(t.isRead),\"ack\":\(t.acknowledged),"
            + "\"bytes\":[\(t.bytes.map(String.init).joined(separator: ","))]}\n"
    }

    private static func report(_ line: String) {
        FileHandle.standardError.write(Data("hapbridge emulate: \(line)\n".utf8))
    }

    /// COMMAND with SIGTERM and SIGHUP passed on to it (SIGINT reaches it from the terminal).
    private static func runCommand(_ command: [String]) -> Int32 {
        let child = Mutex<(process: ChildProcess?, pending: [Int32])>((nil, []))
        let signals = SignalRelay([SIGTERM, SIGHUP, SIGINT]) { signal in
            guard signal != SIGINT else { return }
            child.withLock { c in
                if let p = c.process { p.send(signal) } else { c.pending.append(signal) }
            }
        }
        defer { signals.stop() }
        switch ChildProcess.spawn(command) {
        case .success(let c):
            child.withLock { state in
                state.process = c
                state.pending.forEach(c.send)
            }
            return c.wait()
        case .failure(let f):
            report(f.message)
            return f.status
        }
    }
}
