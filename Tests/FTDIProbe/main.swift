import Actuators
import DRV2605
import DeviceInterface
import Devices
import FTDIBridge
import Foundation
import HostedBoard

// The product's FT232H path (libftdi → FT232HI2CBus → the DRV2605 driver) as a COMMAND
// under `hapbridge emulate ft232h`: what FTDITests runs. One line per step,
// "kind key=value ...", and every register write the driver made as a `write` line,
// so a test can compare them with the transactions the emulated chip saw.
//
//   ftdi-probe bringup            detect, reset, leave standby, configure for the actuator
//   ftdi-probe write-read REG VAL write a register, read it back
//   ftdi-probe batch              three register writes in one USB transfer, read back
//   ftdi-probe diagnose           bring-up, then the chip's actuator diagnostic
//   ftdi-probe calibrate          bring-up, then auto-calibration
//   ftdi-probe bad-command        a stream with an opcode MPSSE does not have
//   ftdi-probe wait US            a wait of US µs timed by the FT232H's clock
//   ftdi-probe en-low             EN driven low, then the driver's detect
//   ftdi-probe no-flush           read ADBUS without a send-immediate (the answer comes
//                                 with the latency timer)
//   ftdi-probe hosted-nack        the hosted core's port with its answer reader running: a
//                                 write to an absent address, a read of STATUS, two writes
//                                 (which call reports the NACK)
//   ftdi-probe unplug             detect; SIGUSR1 to the emulation (its parent) and STATUS
//                                 read until the unplug shows as an error; SIGUSR2, the
//                                 FT232H opened again once it is back, detect
//
// `--scl HZ` before the command sets the I2C clock (default 400000).

/// The bus, with every write the driver makes printed as it goes.
final class PrintingBus: I2CBus, Sendable {
    let bus: FT232HI2CBus
    init(_ bus: FT232HI2CBus) { self.bus = bus }

    func write(address: UInt8, register: UInt8, bytes: [UInt8]) async throws(I2CError) {
        try await bus.write(address: address, register: register, bytes: bytes)
        printWrite(address, [register] + bytes)
    }

    func read(address: UInt8, register: UInt8, count: Int) async throws(I2CError) -> [UInt8] {
        try await bus.read(address: address, register: register, count: count)
    }

    func wait(microseconds: UInt64) async throws(I2CError) { try await bus.wait(microseconds: microseconds) }
}

func printWrite(_ address: UInt8, _ bytes: [UInt8]) {
    print("write address=\(address) bytes=\(bytes.map(String.init).joined(separator: ","))")
}

func hex(_ v: UInt8) -> String { String(format: "0x%02X", v) }

func fail(_ step: String, _ error: any Error) -> Never { fail(step, "\(error)") }

func fail(_ step: String, _ message: String) -> Never {
    print("error step=\(step) message=\"\(message)\"")
    exit(1)
}

let (args, sclHz): ([String], Double) = {
    let all = Array(CommandLine.arguments.dropFirst())
    if all.first == "--scl", all.count >= 2, let hz = Double(all[1]) { return (Array(all.dropFirst(2)), hz) }
    return (all, 400_000)
}()
guard let command = args.first else {
    print("usage: ftdi-probe bringup|write-read REG VAL|batch|diagnose|calibrate|bad-command|wait US")
    exit(2)
}

/// The hosted core's port, as the board uses it once its threads run.
func hostedNACK() {
    let port: FT232HHostedI2C
    do { port = try FT232HHostedI2C(serial: nil, sclHz: sclHz) } catch { fail("open", error) }
    port.start(priority: nil)
    func show(_ r: HostedI2CResult) -> String {
        switch r {
        case .acknowledged: "ack"
        case .notAcknowledged: "nack"
        case .adapterFailure(let why): "adapter(\(why))"
        }
    }
    print("absent-write address=0x3A result=\(show(port.write(address: 0x3A, bytes: [0x01, 0x00]) {}))")
    let (r, data) = port.read(address: 0x5A, register: 0x00, count: 1)
    print("next-read register=0x00 result=\(show(r)) bytes=\(data.map(hex).joined(separator: ","))")
    print("then-write address=0x5A result=\(show(port.write(address: 0x5A, bytes: [0x02, 0x00]) {}))")
    let (again, status) = port.read(address: 0x5A, register: 0x00, count: 1)
    print("then-read register=0x00 result=\(show(again)) bytes=\(status.map(hex).joined(separator: ","))")
    port.shutDown()
    print("closed ok=1")
}

func probe(_ command: String) async {
    if command == "hosted-nack" { return hostedNACK() }
    let bus: FT232HI2CBus
    do { bus = try FT232HI2CBus(sclHz: sclHz) } catch { fail("open", error) }
    print("open sclHz=\(Int(bus.sclHz)) divisor=\(bus.clock.divisor) latency=\(bus.latencyMilliseconds)")
    var driver = DRV2605Driver(bus: PrintingBus(bus))
    let profile: ActuatorProfile
    do { profile = try ActuatorProfileLoader.resolve(SimulatedBoardSetup.defaultActuatorProfile) } catch { fail("profile", error) }

    func bringUp(_ driver: inout DRV2605Driver<PrintingBus>) async {
        do {
            let v = try await driver.detect()
            let status = try await driver.readRaw(.status)
            print("detect variant=\(v) status=\(hex(status))")
            try await driver.bringUp(profile: profile)
            print("bringup ok=1")
        } catch { fail("bringup", error) }
    }

    switch command {
    case "bringup":
        await bringUp(&driver)
    case "write-read" where args.count == 3:
        guard let r = UInt8(args[1], radix: 16).flatMap(RegisterAddress.init(rawValue:)), let v = UInt8(args[2], radix: 16) else {
            print("usage: ftdi-probe write-read REG VAL (hex)")
            exit(2)
        }
        do {
            try await driver.writeRaw(r, [v])
            let back = try await driver.readRaw(r)
            print("readback register=\(hex(r.rawValue)) wrote=\(hex(v)) read=\(hex(back))")
        } catch { fail("write-read", error) }
    case "batch":
        // RATED_VOLTAGE, OD_CLAMP, RTP_INPUT in one USB transfer, each its own transaction.
        let writes: [(register: UInt8, bytes: [UInt8])] = [(0x16, [0x3E]), (0x17, [0x8C]), (0x02, [0x40])]
        do {
            try await bus.write(address: driver.address, batch: writes)
            for w in writes { printWrite(driver.address, [w.register] + w.bytes) }
            let back = try await bus.read(address: driver.address, register: 0x16, count: 2) + bus.read(address: driver.address, register: 0x02, count: 1)
            print("batch read=\(back.map(hex).joined(separator: ","))")
        } catch { fail("batch", error) }
    case "diagnose":
        await bringUp(&driver)
        do {
            let r = try await driver.runDiagnostics()
            print("diagnose passed=\(r.passed ? 1 : 0) status=\(hex(r.status)) vbat=\(String(format: "%.2f", r.supplyVolts))")
        } catch { fail("diagnose", error) }
    case "calibrate":
        await bringUp(&driver)
        do {
            let r = try await driver.autoCalibrate()
            print("calibrate passed=\(r.passed ? 1 : 0) comp=\(hex(r.compensationCode)) bemf=\(hex(r.backEMFCode))")
        } catch { fail("calibrate", error) }
    case "bad-command":
        // Read ADBUS, an opcode AN_108 does not define (0x00), read ADBUS again.
        do {
            let answer = try await bus.exchange([0x81, 0x00, 0x81], answerCount: 2)
            print("bad-command caught=0 answer=\(answer.map(hex).joined(separator: ","))")
        } catch {
            print("bad-command caught=1 message=\"\(error)\"")
        }
    case "wait" where args.count == 2:
        guard let us = UInt64(args[1]) else { exit(2) }
        do {
            try await bus.wait(microseconds: us)
            print("wait us=\(us) ok=1")
        } catch { fail("wait", error) }
    case "unplug":
        do {
            let v = try await driver.detect()
            print("before variant=\(v)")
        } catch { fail("before", error) }
        kill(getppid(), SIGUSR1)
        // Bounded: each read is a USB round trip; the unplug lands within a few.
        var gone: (any Error)?
        for _ in 0..<20_000 {
            do { _ = try await driver.readRaw(.status) } catch {
                gone = error
                break
            }
        }
        guard let gone else { fail("unplug", "STATUS still read after 20,000 tries") }
        print("unplugged error=\"\(gone)\"")
        await bus.close()
        kill(getppid(), SIGUSR2)
        var again: FT232HI2CBus?
        var lastError: (any Error)?
        let deadline = Date().addingTimeInterval(20)
        while again == nil && Date() < deadline {
            do { again = try FT232HI2CBus(sclHz: sclHz) } catch { lastError = error }
        }
        guard let again else { fail("replug", lastError.map { "\($0)" } ?? "not back") }
        var second = DRV2605Driver(bus: again)
        do {
            let v = try await second.detect()
            print("replugged variant=\(v) status=\(hex(try await second.readRaw(.status)))")
        } catch { fail("replugged", error) }
        await again.close()
        print("closed ok=1")
        return
    case "no-flush":
        do {
            let answer = try await bus.exchange([0x81], answerCount: 1, sendImmediate: false)
            print("no-flush answer=\(answer.map(hex).joined(separator: ","))")
        } catch { fail("no-flush", error) }
    case "en-low":
        do { try await bus.setEnable(false) } catch { fail("en-low", error) }
        do {
            let v = try await driver.detect()
            print("en-low detected=\(v)")
        } catch {
            print("en-low error=\"\(error)\"")
        }
    default:
        print("unknown command \(command)")
        exit(2)
    }
    await bus.close()
    print("closed ok=1")

}

await probe(command)
