import Actuators
import AVRBootloaders
import ArgumentParser
import DeviceInterface
import Devices
import EmulationControl
import FirmwareImage
import Foundation
import SensorModel
import SimavrBridgeDevice
import SimulatedBoard
import USBEmulation

/// `hapbridge emulate`: run any program with emulated hardware plugged in, through
/// umockdev and our own device emulations (Sources/USBEmulation, README there).
struct EmulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulate",
        abstract: "Run a program with emulated hardware plugged in (umockdev + live device emulations).",
        subcommands: [Bridge.self, Caterina.self, Control.self, DFU.self, FT232H.self])

    struct Bridge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run COMMAND with emulated bridge boards on USB, seen by libusb (and lsusb) as real ones.",
            discussion: """
                Each board is a USB device 1209:0001 on bus 1, port N (hardware address usb:1-N), answered \
                live by the firmware core in real time (--firmware core) or by the firmware ELF under simavr \
                (--firmware elf). Boards that misbehave, for testing a host's errors: --firmware noise (the \
                bridge's descriptors, but bulk IN sends bytes that are never a frame and what is sent is \
                ignored), --protocol 1.0 (the core answering as firmware 0.1 did: HELLO_REPLY at minor 0, \
                1.1's frames NAKed UNKNOWN_TYPE), --deny-access (opening a board fails with EACCES, as \
                without the udev rule). COMMAND finds the control socket in $HAPBRIDGE_EMULATE_CONTROL: \
                `hapbridge emulate control list|unplug [BOARD]|detach [BOARD]|replug [BOARD]|add [--serial S]|fault [BOARD] KIND ADDRESS|stall [BOARD] MS|hold [BOARD]|release [BOARD]`; \
                SIGUSR1 / SIGUSR2 to this process unplug / replug the first board. COMMAND starts with every \
                signal at its default disposition and none blocked. ENTER_BOOTLOADER puts the board's \
                Caterina bootloader (\(BootloaderIdentity.proMicroCaterina), a tty /dev/ttyACMn) on its port over a flash holding what the \
                board runs; leaving it (E) brings the firmware back, the ELF backing running what was flashed. \
                `fault` arms a failure for that bootloader at the first block written over ADDRESS (unplug, silence, \
                corrupt, or slow: every block from there answered 0.25 s late); `hold` keeps the board's next \
                bootloader off its port until `release`. `stall` \
                freezes a board's firmware for MS milliseconds (no timer, no USB intake; the ELF's simulator \
                stopped), then it runs on: commands that fell due run late and what no longer fits its queue \
                is refused, as a board whose CPU was held.
                Exit status: COMMAND's; 128+N if signal N killed it; 2 if an option is malformed on its face \
                (a serial the firmware refuses, --boards out of range, no COMMAND: nothing was started); 125 if \
                the emulation could not be set up (an actuator profile not found or unusable, an ELF or harness \
                missing or failing to start, a control socket path taken by something else), with one line \
                `Error: ...`; 126 / 127 if COMMAND could not be run / was not found.
                """)

        enum FirmwareKind: String, ExpressibleByArgument, CaseIterable, Sendable { case core, elf, noise }

        @Option(
            help: """
                What runs the firmware: core (the firmware core in process, real time), elf (the ELF under simavr, \
                paced to real time) or noise (no firmware: noise on bulk IN, bulk OUT ignored).
                """)
        var firmware: FirmwareKind = .core

        @Option(
            name: .customLong("protocol"),
            help: ArgumentHelp(
                "--firmware core: the protocol it speaks: 1.1, or 1.0 as firmware 0.1 answered (HELLO_REPLY at minor 0, 1.1's frames NAKed UNKNOWN_TYPE).",
                valueName: "1.0|1.1"))
        var protocolVersion: BridgeEmulation.ProtocolVersion = .v1_1

        @Flag(help: "Every board's device node is read-only to COMMAND: opening it fails with EACCES, as without Hardware/udev/60-hapbridge.rules (as root, COMMAND runs without CAP_DAC_OVERRIDE).")
        var denyAccess = false

        @Option(help: "How many boards to plug in (default: one, or one per --serial).")
        var boards: Int?

        @Option(name: .customLong("serial"), help: ArgumentHelp("A board's serial number, the record in its EEPROM (repeat for several boards; default 0001, 0002, ...; UNSET: a blank EEPROM, the board reports UNSET until `flash --serial` writes one).", valueName: "S"))
        var serials: [String] = []

        @Option(help: ArgumentHelp("Write events as JSON lines: plug/unplug, every I2C transaction with board and host time, reboots.", valueName: "FILE"))
        var log: String?

        @Option(help: ArgumentHelp("--firmware core or elf: the actuator profile on the simulated chip (a name from Hardware/actuators or a .json path).", valueName: "PROFILE"))
        var actuator: String = SimulatedBoardSetup.defaultActuatorProfile

        @Flag(
            help: """
                --firmware core or elf: a LIS3DH accelerometer on the board's I2C bus at 0x18, on the actuator's sled (X along \
                its motion, Z up; \(ShippedFiles.document("Hardware/boards/accelerometer.md"))). The firmware finds it and streams it while the engine \
                plays; every acceleration figure (measure, sweep, play --plot and --record, run) then comes from it, labelled \
                sensor; without it, from the actuator's model, labelled model.
                """)
        var accelerometer = false

        @Option(
            name: .customLong("accelerometer-axis"),
            help: ArgumentHelp(
                "--accelerometer: the sensor's axis the actuator moves along (x: a sled on rails, the default; z: a coin LRA with the sensor flat on it, gravity on Z too). Read it with the client's --axis.",
                valueName: "x|y|z"))
        var accelerometerAxis: AccelerationAxis?

        @Option(
            help: ArgumentHelp(
                "--firmware elf: the firmware ELF (default: the one installed with hapbridge, PREFIX/share/hapbridge/firmware/hapbridge-32u4.elf, else its build's Firmware/build/hapbridge-32u4.elf).",
                valueName: "PATH"))
        var elf: String?

        @Option(
            help: ArgumentHelp(
                "--firmware elf: the simavr harness (default: the one installed with hapbridge, PREFIX/lib/hapbridge/sim-harness, else its build's Firmware/build/host/sim-harness).",
                valueName: "PATH"))
        var harness: String?

        @Option(
            name: .customLong("control-socket"),
            help: ArgumentHelp(
                "Where to make the control socket (default: in a private directory of its own). A socket nobody answers on is replaced; anything else there is refused. Removed at the end.",
                valueName: "PATH"))
        var controlSocket: String?

        @Argument(parsing: .postTerminator, help: ArgumentHelp("The program to run, after --.", valueName: "COMMAND"))
        var command: [String] = []

        func validate() throws {
            guard !command.isEmpty else { throw ValidationError("give the program to run after --, e.g. `hapbridge emulate bridge -- lsusb -d 1209:0001`") }
            // A USB bus addresses 127 devices, one of them its root hub.
            if let boards, !(1...126).contains(boards) { throw ValidationError("--boards must be 1...126, not \(boards)") }
            if let boards, boards < serials.count { throw ValidationError("--boards \(boards) is fewer than the \(serials.count) --serial given") }
            for s in serials {
                do { try BridgeEmulation.validate(serial: s) } catch { throw ValidationError("--serial: \(error.description)") }
            }
            if Set(serials).count != serials.count { throw ValidationError("--serial: \(BridgeEmulation.duplicateSerial)") }
            if accelerometer && firmware == .noise {
                throw ValidationError("--accelerometer needs --firmware core or elf (a noise board runs no firmware to read it)")
            }
            if accelerometerAxis != nil && !accelerometer { throw ValidationError("--accelerometer-axis needs --accelerometer") }
            if protocolVersion != .v1_1 && firmware != .core {
                throw ValidationError("--protocol \(protocolVersion.rawValue) needs --firmware core (the ELF is the firmware it is built from)")
            }
        }

        func run() throws {
            let all = BridgeEmulation.serials(given: serials, count: max(boards ?? 1, serials.count))
            let status: Int32
            do {
                status = try EmulationSession.run(
                    .init(
                        firmware: try makeFirmware(), serials: all, logPath: log, denyAccess: denyAccess,
                        controlSocketPath: controlSocket, command: command))
            } catch {
                // Setting up failed: nothing of the emulation runs, COMMAND never started.
                try? Console.err("Error: " + HapbridgeCommand.oneLine(String(describing: error)))
                throw ExitCode(EmulationSession.setUpFailedStatus)
            }
            throw ExitCode(status)
        }

        /// A set-up failure (status 125, see the discussion).
        struct SetUpError: Error, CustomStringConvertible {
            var description: String
        }

        private func makeFirmware() throws -> BridgeEmulation.Firmware {
            // The core and the ELF drive the same chip model with this actuator on it.
            func profile() throws -> ActuatorProfile {
                do { return try ActuatorProfileLoader.resolve(actuator) } catch { throw SetUpError(description: "--actuator: \(error)") }
            }
            // Flat on the sled, Z up, the actuator's motion along X (the host reads X by
            // default) or along the axis given.
            let mounting = accelerometer ? LIS3DHChip.Mounting(actuatorAxis: (accelerometerAxis ?? .x).rawValue) : nil
            switch firmware {
            case .core:
                var configuration = SimulatedBoard.Configuration(profile: try profile())
                configuration.accelerometer = mounting
                return .core(configuration, protocol: protocolVersion)
            case .elf:
                // The pair installed with this hapbridge, or its build's (never a path compiled in).
                let looked = SimavrBridgeDevice.candidates()
                let carried = looked.map(\.artifacts).first { $0.exist }
                guard let harness = harness ?? carried?.harness, let elf = elf ?? carried?.firmware else {
                    let places = looked.map { "\($0.artifacts.harness) with \($0.artifacts.firmware), \($0.hint)" }
                    throw SetUpError(
                        description: "--firmware elf: no simavr harness and firmware ELF found"
                            + (places.isEmpty ? "" : ": looked for " + places.joined(separator: "; and for "))
                            + "; or give --harness and --elf")
                }
                let artifacts = SimavrBridgeDevice.Artifacts(harness: harness, firmware: elf)
                let fm = FileManager.default
                guard fm.isExecutableFile(atPath: artifacts.harness) else {
                    throw SetUpError(description: "--firmware elf: the simavr harness \(artifacts.harness) is not an executable file")
                }
                guard fm.fileExists(atPath: artifacts.firmware) else {
                    throw SetUpError(description: "--firmware elf: the firmware ELF \(artifacts.firmware) does not exist")
                }
                return .elf(artifacts, load: .actuator(Actuator(profile: try profile())), accelerometer: mounting)
            case .noise:
                return .noise
            }
        }
    }

    struct Caterina: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run COMMAND with an ATmega32U4 board waiting in its Caterina bootloader (AVR109) at /dev/ttyACM0.",
            discussion: """
                The board is an Arduino Leonardo's bootloader, USB \(BootloaderIdentity.leonardoCaterina), two CDC-ACM interfaces and the tty \
                /dev/ttyACM0, answered live by an AVR109 engine over a model of the 32U4's flash (128-byte pages, the \
                4 KiB bootloader section at 0x7000 write-protected, signature 1E 95 87; each page erase or write takes \
                \(EmulateCommand.spmTime), and a command is answered once its erases and writes are done, as \
                Caterina answers: a 128-byte block is one of each, the chip erase one of each per application page), \
                so `avrdude -c avr109 -p \
                atmega32u4 -P /dev/ttyACM0` and `hapbridge flash --port /dev/ttyACM0` program it. It stays in the \
                bootloader until COMMAND ends (leaving it with E is answered, the board does not re-enumerate). \
                With --sketch the board runs an Arduino sketch first (a Leonardo's application, \(BootloaderIdentity.leonardoSketch), tty \
                /dev/ttyACM0) and resets into Caterina on the same port (a new tty, /dev/ttyACM1) when its port is \
                set to 1200 baud and closed, as the Arduino core does. --board pro-micro makes it a 5 V SparkFun Pro Micro \
                instead: Caterina \(BootloaderIdentity.proMicroCaterina), its sketch \(BootloaderIdentity.proMicroSketch). A summary line on standard error at the end. Exit status: COMMAND's; 128+N if signal N killed it; \
                125 if the emulation could not be set up (or --image was refused); 126 / 127 if COMMAND could not be \
                run / was not found.
                """)

        @Option(help: ArgumentHelp("An application already on the board (Intel HEX or ELF) before COMMAND starts.", valueName: "FILE"))
        var image: String?

        @Flag(help: "The board runs a sketch first (ttyACM0) and enters Caterina (ttyACM1) on the 1200-baud touch.")
        var sketch = false

        /// Which board's USB identities the emulation answers with.
        enum Board: String, ExpressibleByArgument, CaseIterable {
            case leonardo
            case proMicro = "pro-micro"
            var caterina: BootloaderIdentity { self == .leonardo ? .leonardoCaterina : .proMicroCaterina }
        }

        @Option(help: ArgumentHelp("The board: leonardo (2341:0036, sketch 2341:8036) or pro-micro (1b4f:9205, sketch 1b4f:9206).", valueName: "board"))
        var board: Board = .leonardo

        @Argument(parsing: .postTerminator, help: ArgumentHelp("The program to run, after --.", valueName: "COMMAND"))
        var command: [String] = []

        func validate() throws {
            guard !command.isEmpty else {
                throw ValidationError("give the program to run after --, e.g. `hapbridge emulate caterina -- avrdude -c avr109 -p atmega32u4 -P /dev/ttyACM0`")
            }
        }

        func run() throws {
            let status: Int32
            do {
                var flash = FlashMemory(part: .atmega32u4, bootloader: CaterinaBootloader.bootSection)
                if let image { try CaterinaEmulation.preload(&flash, imageFile: image) }
                status = try CaterinaSession.run(.init(flash: flash, identity: board.caterina, sketch: sketch, command: command))
            } catch {
                try? Console.err("Error: " + HapbridgeCommand.oneLine(String(describing: error)))
                throw ExitCode(EmulationSession.setUpFailedStatus)
            }
            throw ExitCode(status)
        }
    }

    struct Control: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send a command to a running emulation: list, unplug [BOARD], detach [BOARD], replug [BOARD], add [--serial S], fault [BOARD] unplug|silence|corrupt|slow ADDRESS, stall [BOARD] MS, hold [BOARD], release [BOARD], help.",
            discussion: """
                BOARD is a bus-port name (1-2) or a serial number. The emulation's reply is printed with control \
                characters made visible. Exit status: 0 when the emulation answered ok, 1 when it answered an \
                error or could not be reached, 2 without a command.
                """)

        @Option(help: ArgumentHelp("The control socket (default: $HAPBRIDGE_EMULATE_CONTROL, set for COMMAND).", valueName: "PATH"))
        var socket: String?

        /// Everything from the command word on, options of `add` included, so the
        /// parser takes every word as it is; `--help` / `-h` as the first word are
        /// this command's help, not a command for the emulation (whose own `help`
        /// lists the commands it takes).
        @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("The command and its arguments.", valueName: "CMD"))
        var words: [String] = []

        func validate() throws {
            if let first = words.first, ["--help", "-h"].contains(first) {
                throw CleanExit.helpRequest(self)
            }
            guard !words.isEmpty else {
                throw ValidationError("give a command: list, unplug [BOARD], detach [BOARD], replug [BOARD], add [--serial S], fault [BOARD] unplug|silence|corrupt|slow ADDRESS, stall [BOARD] MS, hold [BOARD], release [BOARD], help")
            }
        }

        func run() throws {
            guard let path = socket ?? ProcessInfo.processInfo.environment[ControlClient.environmentVariable] else {
                throw CLIError("no control socket: run under `hapbridge emulate bridge` or give --socket")
            }
            let reply: (ok: Bool, lines: [String])
            do { reply = try ControlClient.send(words.joined(separator: " "), to: path) } catch {
                throw CLIError(error.description)
            }
            // Console makes every line safe for the terminal (the board names in a
            // reply come from whoever sent them).
            try Console.lines(reply.lines, to: .output)
            if !reply.ok { throw ExitCode.failure }
        }
    }
}

extension BridgeEmulation.ProtocolVersion: ExpressibleByArgument {}

extension EmulateCommand {
    /// "4.5 ms": the emulated part's self-programming time, as the help texts give it.
    static var spmTime: String {
        let us = AVRPart.atmega32u4.selfProgrammingMicroseconds
        return "\(us / 1000).\(us % 1000 / 100) ms"
    }
}

extension EmulateCommand {
    struct DFU: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dfu",
            abstract:
                "Run COMMAND with an ATmega32U4 in Atmel's DFU bootloader (\(BootloaderIdentity.atmega32u4DFU)) on USB, for dfu-programmer, avrdude -c flip1 or `hapbridge flash`.",
            discussion: """
                The bootloader is on bus 1, port 1 (usb:1-1) with an erased application section and a \
                write-protected 4 KiB bootloader section, answering as a real ATmega32U4's: its descriptors, USB \
                DFU 1.0 with FLIP protocol 1's commands (erase, blank check, select page in doc7618's and avrdude's \
                forms, program, read, read configuration: manufacturer 0x58 and the signature 1E 95 87), reads and \
                writes refused until a chip erase (its security mode). Each page erase or write takes \
                \(EmulateCommand.spmTime) and a request completes once they are done (the chip erase: one erase per \
                application page; a program command: an erase and a write per page). Starting the application (or a reset) takes the device off the bus. At the end one line on \
                standard error counts erases, pages written, bytes read and refused commands, and says how long \
                the flash was busy.
                --dump's path is checked before COMMAND starts; to a FIFO it waits for its reader until SIGINT, \
                SIGTERM or SIGHUP (one line saying so; a second exits at once). Exit status: COMMAND's; 128+N if \
                signal N killed it, or came while --dump waited for a reader; 125 if the emulation could not be set \
                up (--dump's path cannot be written), or the dump could not be written when COMMAND had ended, with \
                one line `Error: ...`; 126 / 127 if COMMAND could not be run / was not found.
                """)

        @Option(help: ArgumentHelp("When COMMAND has ended, write the whole flash (32 KiB, bootloader section included) to FILE (checked before COMMAND starts).", valueName: "FILE"))
        var dump: String?

        @Option(
            help: ArgumentHelp(
                "Fail the first block programmed over ADDRESS: unplug (not written, the board leaves the bus and is plugged back in 0.3 s later, in its bootloader), silence (written, never answered: the host times out), corrupt (one bit flipped: the read-back differs) or slow (it and every block after it answered 0.25 s late). For rehearsing an interrupted flash.",
                valueName: "KIND@ADDRESS"))
        var fault: String?

        var parsedFault: BootloaderFault? {
            get throws {
                guard let fault else { return nil }
                let parts = fault.split(separator: "@", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw ValidationError("--fault \(fault): KIND@ADDRESS, e.g. corrupt@0x1000") }
                switch BootloaderFault.parse(kind: parts[0], address: parts[1]) {
                case .success(let f): return f
                case .failure(let why): throw ValidationError("--fault: \(why)")
                }
            }
        }

        @Argument(parsing: .postTerminator, help: ArgumentHelp("The program to run, after --.", valueName: "COMMAND"))
        var command: [String] = []

        func validate() throws {
            guard !command.isEmpty else { throw ValidationError("give the program to run after --, e.g. `hapbridge emulate dfu -- dfu-programmer atmega32u4 get`") }
            _ = try parsedFault
        }

        func run() throws {
            let status: Int32
            do { status = try DFUEmulation.run(.init(command: command, dumpPath: dump, fault: try? parsedFault)) } catch {
                try? Console.err("Error: " + HapbridgeCommand.oneLine(String(describing: error)))
                throw ExitCode(error.exitStatus)
            }
            throw ExitCode(status)
        }
    }
}
