import Foundation
import TestSupport
import Testing

/// One door per adapter: every device is opened through the catalog and states its serial
/// in HELLO_REPLY, so `hapbridge calibrate` keeps an LRA's calibration under that serial
/// and both `hapbridge play` and `HapticEngine.open(address:)` (the library, run as
/// engine-open-probe) find it there and drive the chip in closed loop with the same
/// settings — on the simulated board, on a bridge board (the firmware core and the
/// ATmega32U4 ELF under simavr, `emulate bridge`) and on an FT232H (the core hosted in
/// the player, `emulate ft232h`). The witnesses are the chip's: the registers the probe
/// reads back from it, what `play --record` says the board ran, and every I2C write the
/// emulated chip saw (`emulate --log`).
@Suite("one door: a calibration stored by the board's serial drives play and the library alike", .serialized)
struct OneDoorCalibrationTests {
    static let actuator = "pmd-c10-100"
    static let elf = Hapbridge.path("Firmware/build/hapbridge-32u4.elf")
    static let harness = Hapbridge.path("Firmware/build/host/sim-harness")
    static let probe = URL(fileURLWithPath: Hapbridge.executable).deletingLastPathComponent().appendingPathComponent("engine-open-probe").path

    enum Device: String, CaseIterable, CustomStringConvertible {
        case sim, bridgeCore, bridgeELF, ft232h
        var description: String { rawValue }

        /// The address every command takes, and the serial the board states for it.
        var address: String {
            switch self {
            case .sim: "sim"
            case .bridgeCore, .bridgeELF: "usb"
            case .ft232h: "ftdi"
            }
        }
        var serial: String {
            switch self {
            case .sim: "SIMULATED"
            case .bridgeCore, .bridgeELF: "0001"
            case .ft232h: "FT0001"
            }
        }

        /// `argv` run as the emulation's COMMAND (or alone on `sim`), the emulation logging
        /// the chip's I2C to `log` when given.
        func wrapped(_ argv: [String], log: String?) -> [String] {
            let logging = log.map { ["--log", $0] } ?? []
            switch self {
            case .sim: return argv
            case .bridgeCore: return ["emulate", "bridge", "--actuator", OneDoorCalibrationTests.actuator] + logging + ["--"] + argv
            case .bridgeELF:
                return ["emulate", "bridge", "--firmware", "elf", "--elf", OneDoorCalibrationTests.elf, "--harness", OneDoorCalibrationTests.harness,
                        "--actuator", OneDoorCalibrationTests.actuator] + logging + ["--"] + argv
            case .ft232h: return ["emulate", "ft232h", "--actuator", OneDoorCalibrationTests.actuator] + logging + ["--"] + argv
            }
        }

        var isAvailable: Bool {
            self != .bridgeELF || (FileManager.default.fileExists(atPath: OneDoorCalibrationTests.elf)
                && FileManager.default.isExecutableFile(atPath: OneDoorCalibrationTests.harness))
        }
    }

    /// `hapbridge ARGS` as a user runs it, or the library probe under the same
    /// emulation (`emulate … -- engine-open-probe`), with the test's own configuration.
    static func run(_ device: Device, _ argv: [String], config: String, log: String? = nil) throws -> HapbridgeRun {
        if device == .sim, let program = argv.first, program == probe {
            // No emulation to run it under: the probe alone, with the same configuration.
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_CONFIG_HOME"] = config
            let r = try BoundedProcess.run(program, Array(argv.dropFirst()), environment: environment, hangGuardSeconds: 120)
            if r.hung { Issue.record("hung: \(argv)") }
            return HapbridgeRun(status: r.status, signal: nil, stdout: Array(r.output.utf8), stderr: Array(r.errors.utf8))
        }
        // Under an emulation COMMAND is a program: the built hapbridge, or the probe.
        let command = device == .sim || argv.first == probe ? argv : [Hapbridge.executable] + argv
        return try Hapbridge.run(device.wrapped(command, log: log), cpuSeconds: 120, configHome: config)
    }

    @Test(
        "calibrate keeps the results under the serial the board states; play and HapticEngine.open then write the same calibrated settings",
        arguments: [Device.sim, .bridgeCore, .ft232h])
    func calibratedDriveIsTheSameThroughEveryDoor(device: Device) throws {
        try Self.calibrateThenPlayBothWays(on: device)
    }

    @Test(
        "on the ATmega32U4 ELF under simavr too: calibrate keeps it under the firmware's serial, and play and HapticEngine.open drive alike",
        .enabled(if: Device.bridgeELF.isAvailable, "make -C Firmware firmware"))
    func calibratedDriveIsTheSameOnTheFirmwareImage() throws {
        try Self.calibrateThenPlayBothWays(on: .bridgeELF)
    }

    static func calibrateThenPlayBothWays(on device: Device) throws {
        let scratch = try Hapbridge.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let config = scratch.appendingPathComponent("config").path
        let pattern = try Patterns.write(Patterns.document([Patterns.continuous(at: 0, duration: 0.15)]), named: "buzz.ahap", in: scratch)

        // 1. calibrate: PASS, kept as SERIAL@ACTUATOR.json, and the five bytes to write back.
        let calibrate = try run(device, ["calibrate", "--device", device.address, "--actuator", actuator], config: config)
        #expect(calibrate.status == 0, "\(calibrate.out)\n\(calibrate.err)")
        let stored = try #require(calibrate.out.split(separator: "\n").first { $0.hasPrefix("stored for `play` (closed loop): ") }, "\(calibrate.out)")
        #expect(stored.hasSuffix("/\(device.serial)@\(actuator).json"), "\(stored)")
        let block = try #require(storedBlock(calibrate.out), "\(calibrate.out)")

        // 2. play: closed loop with it; what the board ran sets A_CAL_COMP, A_CAL_BEMF, FEEDBACK_CONTROL to it.
        let record = scratch.appendingPathComponent("play.json").path
        let playLog = scratch.appendingPathComponent("play.log").path
        let play = try run(
            device, ["play", pattern, "--device", device.address, "--actuator", actuator, "--record", record], config: config,
            log: device == .sim ? nil : playLog)
        // 4: played late on a loaded host (the FT232H's writes are timed by this host); the drive is what is checked.
        #expect(play.status == 0 || play.status == 4, "\(play.out)\n\(play.err)")
        #expect(play.out.contains(", closed loop, "), "\(play.out)")
        #expect(play.out.contains("drive: closed loop, calibrated "), "\(play.out)")
        let ran = try recordedRegisters(record)
        for (i, register) in [0x18, 0x19, 0x1A].enumerated() {
            #expect(ran[register] == Int(block[2 + i]), "register \(register) ran \(ran[register].map(String.init) ?? "never"), stored \(block)")
        }

        // 3. the library's door: the same drive, read back from the chip.
        let probeLog = scratch.appendingPathComponent("probe.log").path
        let library = try run(device, [probe, device.address, actuator], config: config, log: device == .sim ? nil : probeLog)
        #expect(library.status == 0, "\(library.out)\n\(library.err)")
        let line = try #require(library.out.split(separator: "\n").first { $0.hasPrefix("engine ") }.map(String.init), "\(library.out)\n\(library.err)")
        let fields = Self.fields(line)
        #expect(fields["loop"] == "closed", "\(line)")
        for register in [0x16, 0x17, 0x18, 0x19, 0x1A, 0x1D] {
            let key = String(format: "%02x", register)
            let read = fields[key].flatMap { Int($0, radix: 16) }
            if let written = ran[register] { #expect(read == written, "register \(key): play ran \(written), the library's chip holds \(read ?? -1)") }
        }
        #expect(fields["18"].flatMap { Int($0, radix: 16) } == Int(block[2]), "\(line) vs \(block)")

        // 4. on an emulation, the chip itself saw the same settings written by both.
        if device != .sim {
            let byPlay = try chipRegisters(playLog), byLibrary = try chipRegisters(probeLog)
            for register in [0x16, 0x17, 0x18, 0x19, 0x1A, 0x1D] {
                #expect(byPlay[register] != nil && byPlay[register] == byLibrary[register],
                        "register \(register): play wrote \(byPlay[register] ?? -1), the library \(byLibrary[register] ?? -1)")
            }
        }
    }

    /// "registers RATED_VOLTAGE...FEEDBACK_CONTROL = 0x3E 0x8C 0x0C 0x6D 0xB6" → the bytes.
    static func storedBlock(_ output: String) -> [UInt8]? {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("store and write back after a reset:") }),
              let equals = line.lastIndex(of: "=")
        else { return nil }
        let bytes = line[line.index(after: equals)...].split(separator: " ").compactMap { UInt8($0.dropFirst(2), radix: 16) }
        return bytes.count == 5 ? bytes : nil
    }

    /// The last value `play --record` says the board wrote to each register.
    static func recordedRegisters(_ path: String) throws -> [Int: Int] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let commands = try #require(object["commands"] as? [[String: Any]])
        var last: [Int: Int] = [:]
        for c in commands where c["kind"] as? String == "register" {
            if let r = c["register"] as? Int, let v = c["value"] as? Int { last[r] = v }
        }
        return last
    }

    /// The last value the emulated chip saw written to each register (a write's bytes are
    /// the register, then its value and the next registers'). `emulate bridge` logs the
    /// bytes as hex with `"op":"w"`, `emulate ft232h` as numbers with `"read":false`.
    static func chipRegisters(_ path: String) throws -> [Int: Int] {
        var last: [Int: Int] = [:]
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
            let isWrite = object["op"] as? String == "w" || object["read"] as? Bool == false
            guard isWrite, object["ack"] as? Bool != false else { continue }
            let bytes: [Int]
            if let numbers = object["bytes"] as? [Int] { bytes = numbers }
            else if let text = object["bytes"] as? String {
                let digits = Array(text)
                bytes = stride(from: 0, to: digits.count - 1, by: 2).compactMap { Int(String(digits[$0...$0 + 1]), radix: 16) }
            } else { continue }
            guard let register = bytes.first else { continue }
            for (i, value) in bytes.dropFirst().enumerated() { last[register + i] = value }
        }
        return last
    }

    /// "engine loop=closed 16=7e …" → ["loop": "closed", "16": "7e", …].
    static func fields(_ line: String) -> [String: String] {
        var fields: [String: String] = [:]
        for word in line.split(separator: " ") {
            guard let eq = word.firstIndex(of: "=") else { continue }
            fields[String(word[..<eq])] = String(word[word.index(after: eq)...])
        }
        return fields
    }
}
