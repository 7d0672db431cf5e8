import Actuators
import ArgumentParser
import DeviceInterface
import Devices
import USBEmulation

extension EmulateCommand {
    struct FT232H: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ft232h",
            abstract: "Run COMMAND with an FT232H (0403:6014) on USB and a DRV2605L on its I2C pins, for libftdi, pyftdi or `--device ftdi`.",
            discussion: """
                The FT232H is on bus 1, port 1, answered live: FTDI's vendor requests (reset, purge, latency \
                timer, bit mode, ...), bulk IN with the two modem-status bytes, and an MPSSE engine executing the \
                command stream (GPIO, clock divisor, three-phase, drive-zero, clocking bits and bytes, the \
                bad-command echo 0xFA). Its pins are wired as for I2C: SCL on AD0, SDA on AD1 and AD2, the \
                DRV2605L's EN on AD4 (pulled down: the chip is in shutdown until a host drives AD4 high); --wiring \
                sda-not-bridged or no-pullups wires SDA and SCL with one of the mistakes Hardware/boards/ft232h.md \
                names ("When diagnose fails"). The \
                chip model sees every transaction bit by bit; its time (and its actuator's) follows the MPSSE \
                clock. SIGUSR1 / SIGUSR2 to this process unplug / replug the FT232H (a replug is a freshly \
                powered FT232H and chip, at the next device address). At the end one line on standard error counts requests, bytes, MPSSE commands and I2C \
                transactions. --log's path is checked before COMMAND starts; to a FIFO it waits for its reader \
                until SIGINT, SIGTERM or SIGHUP (one line saying so; a second exits at once). Exit status: COMMAND's; \
                128+N if signal N killed it, or came while --log waited for a reader; 125 if the emulation could not \
                be set up (--log's path cannot be written), or the log could not be written when COMMAND had ended, \
                with one line `Error: ...`; 126 / 127 if COMMAND could not be run / was not found.
                """)

        @Option(help: ArgumentHelp("The FT232H's serial number (its USB string descriptor).", valueName: "S"))
        var serial: String = FT232HEmulation.defaultSerial

        @Option(help: ArgumentHelp("The actuator profile on the chip's outputs (a name from Hardware/actuators or a .json path).", valueName: "PROFILE"))
        var actuator: String = SimulatedBoardSetup.defaultActuatorProfile

        @Flag(help: "No chip on the I2C pins: every address is NACKed (a miswired or missing DRV2605).")
        var noChip = false

        @Option(
            help: ArgumentHelp(
                "How SDA and SCL reach the chip: ok (as Hardware/boards/ft232h.md wires them), sda-not-bridged (SDA on D1 only: "
                    + "D2, where the ACK bits are read, unconnected), no-pullups (no pull-up on SDA or SCL).",
                valueName: "WIRING"))
        var wiring: FT232HBusWiring = .ok

        @Option(help: ArgumentHelp("When COMMAND has ended, write every I2C transaction the chip saw to FILE as JSON lines (checked before COMMAND starts).", valueName: "FILE"))
        var log: String?

        @Argument(parsing: .postTerminator, help: ArgumentHelp("The program to run, after --.", valueName: "COMMAND"))
        var command: [String] = []

        func validate() throws {
            guard !command.isEmpty else { throw ValidationError("give the program to run after --, e.g. `hapbridge emulate ft232h -- hapbridge diagnose --device ftdi`") }
            // Every serial the emulation takes is one `--device ftdi:SERIAL` can name.
            do { _ = try DeviceAddress(parsing: "ftdi:" + serial) } catch {
                throw ValidationError("--serial: \(TerminalText.safe(error.description))")
            }
        }

        func run() throws {
            let status: Int32
            do {
                let profile: ActuatorProfile
                do { profile = try ActuatorProfileLoader.resolve(actuator) } catch {
                    throw Bridge.SetUpError(description: "--actuator: \(error)")
                }
                status = try FT232HEmulation.run(.init(command: command, serial: serial, actuator: profile, chipPresent: !noChip, busWiring: wiring, logPath: log))
            } catch {
                try? Console.err("Error: " + HapbridgeCommand.oneLine(String(describing: error)))
                throw ExitCode((error as? EmulationError)?.exitStatus ?? EmulationSession.setUpFailedStatus)
            }
            throw ExitCode(status)
        }
    }
}

extension FT232HBusWiring: ExpressibleByArgument {}
