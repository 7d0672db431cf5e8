import DeviceInterface
import LibUSB
import Logging
import SimulatedBridgeDevice
import Synchronization
import USBBridge

/// Turns a device address into an opened device, and finds what is plugged in.
///
/// The rule when no address is given: a bridge board on USB is used if exactly one
/// is present; with none, the simulated board (with a one-line notice saying so);
/// with several, an error listing them, since guessing would drive the wrong bench.
public final class DeviceCatalog: Sendable {
    let logger: Logger
    /// libusb, started the first time something needs it (`sim` never does).
    private let context = Mutex<USBAvailability?>(nil)

    enum USBAvailability {
        case available(USBContext)
        case unavailable(String)
    }

    public init(logger: Logger = Logger(label: "hapbridge.devices")) {
        self.logger = logger
    }

    /// libusb, or nil where it could not start (no USB stack): then only `sim` exists.
    public var usb: USBContext? {
        if case .available(let c) = availability { return c }
        return nil
    }

    /// Why USB is unavailable, when it is.
    public var usbUnavailable: String? {
        if case .unavailable(let why) = availability { return why }
        return nil
    }

    private var availability: USBAvailability {
        context.withLock { state in
            if let state { return state }
            let made: USBAvailability
            do { made = .available(try USBContext(logger: logger)) } catch {
                logger.info("USB unavailable: \(error)")
                made = .unavailable("libusb could not start: \(error)")
            }
            state = made
            return made
        }
    }

    /// Bridge boards on USB now (none when USB is unavailable).
    public func usbBoards() -> [USBBridgeBoard] {
        guard let usb else { return [] }
        do { return try USBBridgeDiscovery.boards(in: usb) } catch {
            logger.warning("USB enumeration failed: \(error)")
            return []
        }
    }

    /// Which device an address (or none) means, without opening it.
    public enum Choice: Sendable, Equatable {
        case simulated(notice: String?)
        case usb(USBBridgeBoard)
    }

    public func choose(_ address: DeviceAddress?) throws(DeviceSelectionError) -> Choice {
        switch address {
        case nil:
            let boards = usbBoards()
            switch boards.count {
            case 0:
                return .simulated(notice: "no bridge board found on USB: using the simulated board (say --device sim to silence this)")
            case 1: return .usb(boards[0])
            default: throw .ambiguous(boards)
            }
        case .simulated?:
            return .simulated(notice: nil)
        case .usb(let selector)?:
            let boards = usbBoards()
            guard let board = boards.first(where: { $0.matches(selector) }) else {
                throw .noMatch(DeviceAddress.usb(selector), found: boards, usbUnavailable: usbUnavailable)
            }
            return .usb(board)
        case .ftdi?:
            throw .unsupported("the FT232H transport is not built yet: use a bridge board (usb) or the simulated board (sim)")
        }
    }

    /// Opens the device an address (or none) names. `simulated` says how to build the
    /// simulated board if that is what it comes to.
    public func open(_ address: DeviceAddress?, simulated: SimulatedBoardSetup) throws(DeviceSelectionError) -> OpenedDevice {
        switch try choose(address) {
        case .simulated(let notice):
            let device = SimulatedBridgeDevice(board: simulated.makeBoard(), link: simulated.link, timing: simulated.timing)
            return OpenedDevice(address: .simulated, summary: simulated.summary, notice: notice, usbBoard: nil, transport: device)
        case .usb(let board):
            guard let usb else { throw .unsupported(usbUnavailable ?? "USB unavailable") }
            if let e = board.openError { throw .device(USBBridgeTransport.deviceError(e, board: board)) }
            do {
                let transport = try USBBridgeTransport(board: board, context: usb, logger: logger)
                return OpenedDevice(
                    address: .usb(.port(bus: board.busNumber, ports: board.portNumbers)), summary: transport.summary, notice: nil,
                    usbBoard: board, transport: transport)
            } catch {
                throw .device(error)
            }
        }
    }
}

/// Why no device could be chosen or opened.
public enum DeviceSelectionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Several boards and no address.
    case ambiguous([USBBridgeBoard])
    /// Nothing matches the address; what is there instead.
    case noMatch(DeviceAddress, found: [USBBridgeBoard], usbUnavailable: String?)
    case unsupported(String)
    case device(DeviceError)

    public var description: String {
        switch self {
        case .ambiguous(let boards):
            "\(boards.count) bridge boards found; pick one with --device: "
                + boards.map { "usb:\($0.portPath)" + ($0.serialNumber.map { " (usb:\($0))" } ?? "") }.joined(separator: ", ")
        case .noMatch(let address, let found, let unavailable):
            if let unavailable { "no device at \(address): \(unavailable)" }
            else if found.isEmpty { "no bridge board found on USB for \(address) (is it plugged in? `hapbridge list` shows what is there)" }
            else {
                "no bridge board matches \(address); found: "
                    + found.map { "usb:\($0.portPath)" + ($0.serialNumber.map { " serial \($0)" } ?? "") }.joined(separator: ", ")
            }
        case .unsupported(let why): why
        case .device(let e): e.description
        }
    }
}
