import DeviceInterface
import Devices
import EmulationControl
import Foundation

/// What switches a bench device's USB power for the `unplug` and `replug` steps:
///
/// - the simulated board: its presence on the bench (`DeviceSlot.unplugged`);
/// - a bridge board under `hapbridge emulate bridge`: the emulation's control socket
///   (`$HAPBRIDGE_EMULATE_CONTROL`), whose `unplug` cuts the board's power and takes it
///   off the bus and whose `replug` boots it afresh; under the emulation every USB
///   device the run sees is the emulation's, so this comes first;
/// - a bridge board on a hub with per-port power switching, declared in the bench file
///   (`power: {uhubctl: {location, port}}`): `uhubctl`, as labgrid's USBPowerPort.
///
/// Anything else cannot be switched from the host, and the steps are skipped with why.
enum PortPower: Sendable, CustomStringConvertible {
    case simulated
    /// The control socket's path and the board's name there (its bus-port or serial;
    /// nil: the emulation's first board, for the address `usb`).
    case emulation(socket: String, board: String?)
    case hub(BenchFile.PowerSwitch)

    /// Why a device's power cannot be switched: a SKIP's reason.
    struct Unavailable: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    /// How long `uhubctl` may take (it retries a hub that does not answer at once).
    static let commandTimeoutSeconds = 20.0
    /// How long a board whose hub port was switched off may stay listed before the
    /// switch is called a failure (the kernel sees the disconnect within a second).
    static let goneTimeoutSeconds = 5.0

    static func choose(for device: BenchFile.Device, environment: [String: String]) -> Result<PortPower, Unavailable> {
        switch device.address {
        case .simulated: return .success(.simulated)
        case .hosted:
            let adapter = DeviceCatalog.hostedAdapter(device.address)?.nameWithArticle ?? "a hosted adapter"
            return .failure(Unavailable(description: "\(device.name) (\(device.address)) cannot be switched from the host (\(adapter) has no switchable port in this bench)"))
        case .usb(let selector):
            if let socket = environment[ControlClient.environmentVariable], !socket.isEmpty {
                let board: String? =
                    switch selector {
                    case .any: nil
                    case .serial(let s): s
                    case .port(let bus, let ports): DeviceAddress.portPath(bus: bus, ports: ports)
                    }
                return .success(.emulation(socket: socket, board: board))
            }
            if let power = device.power { return .success(.hub(power)) }
            return .failure(
                Unavailable(
                    description: "\(device.name) (\(device.address)) has no switchable USB port on this bench (declare one in the bench file: power: {uhubctl: {location, port}})"
                ))
        }
    }

    var description: String {
        switch self {
        case .simulated: "the simulated bench"
        case .emulation(let socket, let board): "emulation control \(board ?? "(first board)") at \(socket)"
        case .hub(let p): p.command(on: false).dropLast(2).joined(separator: " ")
        }
    }

    /// Switches the power; throws with the switch's own words when it refused.
    func switchPower(on: Bool, of device: BenchFile.Device) async throws(StepProblem) {
        switch self {
        case .simulated: return
        case .emulation(let socket, let board):
            let command = (on ? "replug" : "unplug") + (board.map { " \($0)" } ?? "")
            let reply: (ok: Bool, lines: [String])
            do { reply = try ControlClient.send(command, to: socket) } catch { throw .error("emulation control `\(command)`: \(error.description)") }
            guard reply.ok else { throw .error("emulation control `\(command)`: \(reply.lines.last ?? "no answer")") }
        case .hub(let p):
            let argv = p.command(on: on)
            try await Self.run(argv)
        }
    }

    /// Runs a switching command to its end (bounded): its status 0, or the error with
    /// its last line of output.
    static func run(_ argv: [String]) async throws(StepProblem) {
        let shown = argv.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = argv
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let ended = AsyncStream<Int32>.makeStream(of: Int32.self, bufferingPolicy: .bufferingNewest(1))
        process.terminationHandler = { p in
            ended.continuation.yield(p.terminationStatus)
            ended.continuation.finish()
        }
        do { try process.run() } catch { throw .error("`\(shown)` could not run: \(error.localizedDescription)") }
        let text = Task.detached { String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
        let timer = Task {
            try await Task.sleep(for: .seconds(commandTimeoutSeconds))
            process.terminate()
        }
        var status: Int32 = -1
        for await s in ended.stream { status = s }
        timer.cancel()
        let said = await text.value.split(separator: "\n").last.map(String.init) ?? ""
        if status == 127 { throw .error("`\(shown)`: uhubctl is not installed (Debian: apt install uhubctl)") }
        guard status == 0 else { throw .error("`\(shown)` exited with status \(status)\(said.isEmpty ? "" : ": \(said)")") }
    }
}
