import FileAccess
/// The emulation's control protocol: one command per line on the control socket
/// (`HAPBRIDGE_EMULATE_CONTROL`), answered with zero or more lines and then one line
/// starting with `ok` or `error`.
///
///   list                  one line per board: "1-1 serial=0001 plugged node=/dev/bus/usb/001/002"
///   unplug [BOARD]        cut a board's power and take it off the bus (default: the first board)
///   detach [BOARD]        take it off the bus but keep it powered (a self-powered board, a hub
///                         port switched off): its firmware runs on without a host
///   replug [BOARD]        plug it back in: after unplug it boots afresh, after detach it
///                         enumerates again as it is
///   add [--serial S]      a new board on the next port
///   fault [BOARD] unplug|silence|corrupt ADDRESS
///                         the board's Caterina bootloader acts out a failure once, at the
///                         first flash block written over ADDRESS (0x1000 or 4096): it loses
///                         power, the block's answer never comes, or one bit of it is stored
///                         wrong; armed now, it fires in the bootloader (now or next time)
///   stall [BOARD] MS      the board's firmware stops for MS milliseconds (1...60000): no timer,
///                         no USB intake; then it runs on, late, and refuses what no longer fits
///   help
///
/// BOARD is a bus-port name ("1-2") or a serial number.
public enum ControlCommand: Sendable, Equatable {
    case list
    case unplug(String?)
    case detach(String?)
    case replug(String?)
    case add(serial: String?)
    case fault(String?, BootloaderFault)
    case stall(String?, milliseconds: Int)
    case help

    /// The longest `stall`: a minute (longer than any keep-alive a host can ask for).
    public static let stallRange = 1...60_000

    public static let usage = [
        "list", "unplug [BOARD]", "detach [BOARD]", "replug [BOARD]", "add [--serial S]",
        "fault [BOARD] unplug|silence|corrupt ADDRESS", "stall [BOARD] MS", "help",
        "BOARD: a bus-port name (1-2) or a serial number; the first board when left out",
    ]

    public init(parsing line: String) throws(EmulationError) {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        func one(_ name: String) throws(EmulationError) -> String? {
            guard words.count <= 2 else { throw .controlSocket("\(name) takes at most one BOARD, got: \(TerminalText.echo(line))") }
            return words.count == 2 ? words[1] : nil
        }
        switch words.first {
        case "list" where words.count == 1: self = .list
        case "help" where words.count == 1: self = .help
        case "unplug": self = .unplug(try one("unplug"))
        case "detach": self = .detach(try one("detach"))
        case "replug": self = .replug(try one("replug"))
        case "add" where words.count == 1: self = .add(serial: nil)
        case "add" where words.count == 3 && words[1] == "--serial": self = .add(serial: words[2])
        case "fault" where words.count == 3 || words.count == 4:
            switch BootloaderFault.parse(kind: words[words.count - 2], address: words[words.count - 1]) {
            case .success(let fault): self = .fault(words.count == 4 ? words[1] : nil, fault)
            case .failure(let why): throw .controlSocket("fault: \(why)")
            }
        case "stall" where words.count == 2 || words.count == 3:
            guard let ms = Int(words[words.count - 1]), Self.stallRange.contains(ms) else {
                throw .controlSocket(
                    "stall: MS must be a whole number of milliseconds in \(Self.stallRange.lowerBound)...\(Self.stallRange.upperBound), got \(TerminalText.echo(words[words.count - 1]))")
            }
            self = .stall(words.count == 3 ? words[1] : nil, milliseconds: ms)
        default:
            throw .controlSocket("unknown command \"\(TerminalText.echo(line))\"; commands: \(Self.usage.dropLast().joined(separator: ", "))")
        }
    }
}

extension BridgeEmulation {
    /// Runs one control command: the reply lines, the last one "ok ..." or "error ...".
    public func execute(_ line: String) -> [String] {
        do throws(EmulationError) {
            switch try ControlCommand(parsing: line) {
            case .list: return list().map(\.description) + ["ok"]
            case .help: return ControlCommand.usage + ["ok"]
            case .unplug(let board): return ["ok unplugged \(try unplug(board))"]
            case .detach(let board): return ["ok detached \(try detach(board))"]
            case .replug(let board): return ["ok plugged \(try replug(board))"]
            case .add(let serial): return ["ok plugged \(try add(serial: serial ?? nextDefaultSerial()))"]
            case .fault(let board, let fault): return ["ok armed \(fault) on \(try arm(fault, board).busPort)"]
            case .stall(let board, let ms): return ["ok stalled \(try stall(milliseconds: ms, board).busPort) for \(ms) ms"]
            }
        } catch {
            return ["error \(TerminalText.safe(error.description))"]
        }
    }

    /// The default serial of the board `add` plugs into the next port.
    public func nextDefaultSerial() -> String {
        let boards = list()
        let nextPort = (boards.compactMap { Int($0.busPort.split(separator: "-").last ?? "") }.max() ?? 0) + 1
        return Self.defaultSerial(port: nextPort, taken: Set(boards.map(\.serial)))
    }
}
