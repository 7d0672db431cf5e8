import CHapbridgeProtocol
import DeviceInterface
import FTDIBridge
import HostedBoard
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

    /// The guardian an FT232H opened by `open(_:simulated:)` gets (`openFT232H`); nil: none.
    public let ft232hGuardian: FT232HGuardian.Command?
    /// The I2C clock an FT232H's bus runs at (400 kHz or 100 kHz: `MPSSEClock`).
    public let ft232hSCLHz: Double

    public init(
        logger: Logger = Logger(label: "hapbridge.devices"), ft232hGuardian: FT232HGuardian.Command? = nil, ft232hSCLHz: Double = 400_000
    ) {
        self.logger = logger
        self.ft232hGuardian = ft232hGuardian
        self.ft232hSCLHz = ft232hSCLHz
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
    public func usbBoards() -> [USBBridgeBoard] { usbDevices(kinds: [.bridgeFirmware]).compactMap(\.bridgeBoard) }

    /// Every device of a known identity on USB now, by port (none when USB is
    /// unavailable): one enumeration, each device opened once for its serial, except
    /// the kinds in `deferringSerialsOf`, whose serial the first `open(_:)` reads (so a
    /// caller that opens every board, `list`, opens each once).
    public func usbDevices(
        kinds: Set<USBDeviceKind> = Set(USBDeviceKind.allCases), deferringSerialsOf deferred: Set<USBDeviceKind> = []
    ) -> [USBDiscoveredDevice] {
        guard let usb else { return [] }
        do { return try USBDiscovery.devices(in: usb, kinds: kinds, deferringSerialsOf: deferred) } catch {
            logger.warning("USB enumeration failed: \(error)")
            return []
        }
    }

    /// Which device an address (or none) means, without opening it.
    public enum Choice: Sendable, Equatable {
        case simulated(notice: String?)
        case usb(USBBridgeBoard)
        /// A DRV2605 on an FT232H's MPSSE I2C (the first FT232H when `serial` is nil),
        /// played through the firmware core hosted in this process.
        case ft232h(serial: String?)
    }

    public func choose(_ address: DeviceAddress?) throws(DeviceSelectionError) -> Choice {
        switch address {
        case .simulated?: return .simulated(notice: nil)
        case .ftdi(let serial)?: return .ft232h(serial: serial)
        case nil, .usb?: return try Self.choose(address, among: usbBoards(), usbUnavailable: usbUnavailable)
        }
    }

    /// The rule, on the boards found: no address takes the only board (the simulated
    /// one when there is none, an error listing them when there are several);
    /// `usb` the first; `usb:BUS-PORT` the board on that port; `usb:SERIAL` the board
    /// with that serial, and an error listing them when several report it.
    public static func choose(_ address: DeviceAddress?, among boards: [USBBridgeBoard], usbUnavailable: String? = nil)
        throws(DeviceSelectionError) -> Choice
    {
        switch address {
        case nil:
            switch boards.count {
            case 0:
                return .simulated(notice: "no bridge board found on USB: using the simulated board (say --device sim to silence this)")
            case 1: return .usb(boards[0])
            default: throw .ambiguous(boards)
            }
        case .simulated?:
            return .simulated(notice: nil)
        case .usb(let selector)?:
            let matching = boards.filter { $0.matches(selector) }
            guard let board = matching.first else {
                throw .noMatch(DeviceAddress.usb(selector), found: boards, usbUnavailable: usbUnavailable)
            }
            // A serial names one board; two that report the same one cannot be told
            // apart by it, and "the first" would drive whichever enumerated first.
            if case .serial = selector, matching.count > 1 { throw .ambiguousAddress(DeviceAddress.usb(selector), matching) }
            return .usb(board)
        case .ftdi(let serial)?:
            return .ft232h(serial: serial)
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
            return try open(board)
        case .ft232h(let serial):
            return try openFT232H(serial: serial, guardian: ft232hGuardian)
        }
    }

    /// Opens an FT232H with the firmware core hosted in this process (`HostedBoard`): the
    /// link a bridge board would give, timed by the host. Its serial (the first FT232H's,
    /// when none is named) is the board's serial in HELLO_REPLY, so calibrations are kept
    /// per FT232H. The notice says once when real-time scheduling was refused.
    ///
    /// `guardian`, when given, starts a guardian process (`FT232HGuardian`, `hapbridge
    /// guard-ft232h`) that stops the chip if this process dies, is stopped or hangs
    /// while it has the FT232H. It is started once the FT232H is open (it takes the
    /// adapter by the usbfs node libusb opened) and before the chip is brought up; one
    /// that cannot be started, or ends before it is ready, is an error: nothing is driven
    /// unguarded unless asked (nil).
    public func openFT232H(
        serial: String?, guardian: FT232HGuardian.Command? = nil, configuration: ((inout HostedBoard.Configuration) -> Void)? = nil
    ) throws(DeviceSelectionError) -> OpenedDevice {
        let named = ft232hSerial(serial)
        let port: FT232HHostedI2C
        do { port = try FT232HHostedI2C(serial: named, sclHz: ft232hSCLHz) } catch {
            throw .device(DeviceError.notFound("\(DeviceAddress.ftdi(serial: serial)): \(error.description)"))
        }
        var watcher: FT232HGuardian?
        if let guardian {
            do throws(FT232HGuardianError) {
                guard let node = port.usbDevicePath else { throw .spawn("libusb did not say which device node the FT232H is") }
                watcher = try FT232HGuardian(command: guardian, usbfs: node, sclHz: ft232hSCLHz, serial: named)
            } catch {
                port.shutDown()
                throw .unsupported(
                    "\(DeviceAddress.ftdi(serial: serial)): could not start the FT232H's guardian (\(error)): without it nothing would stop "
                        + "the chip if this player died, were stopped or hung, so it is not driven (HAPBRIDGE_FT232H_GUARDIAN=off plays without one)")
            }
        }
        var config = HostedBoard.Configuration(serial: Self.boardSerial(named))
        configuration?(&config)
        let board = HostedBoard(port: port, configuration: config, guardian: watcher)
        let summary = "FT232H\(named.map { " \($0)" } ?? "") (firmware core hosted in process, \(port.summary), host-timed: \(board.scheduling.isRealTime ? "real-time" : "normal priority"))"
        let transport = HostedBoardTransport(board: board, summary: summary, guardian: watcher)
        return OpenedDevice(
            address: .ftdi(serial: serial), summary: summary, notice: board.scheduling.notice, usbBoard: nil, transport: transport,
            hostTiming: board.scheduling, hostedSerial: String(decoding: config.serial, as: UTF8.self))
    }

    /// The FT232H `ftdi:SERIAL` names, or the first one plugged in for plain `ftdi`.
    public func ft232hSerial(_ serial: String?) -> String? {
        serial ?? usbDevices(kinds: [.ft232h]).first?.serialNumber
    }

    /// The serial an FT232H's hosted core reports (and its calibrations are kept under).
    public func hostedSerial(ofFT232H serial: String?) -> String {
        String(decoding: Self.boardSerial(ft232hSerial(serial)), as: UTF8.self)
    }

    /// The bytes of a serial the protocol can carry (1...20 of the characters
    /// `hb_serial_char_ok` takes); "FT232H" for one it cannot.
    static func boardSerial(_ serial: String?) -> [UInt8] {
        let bytes = Array((serial ?? "").utf8)
        guard (1...Int(HB_SERIAL_MAX_LEN)).contains(bytes.count), bytes.allSatisfy(hb_serial_char_ok) else { return Array("FT232H".utf8) }
        return bytes
    }

    /// Opens a board discovery found, without enumerating again (its listed device).
    public func open(_ board: USBBridgeBoard) throws(DeviceSelectionError) -> OpenedDevice {
        guard let usb else { throw .unsupported(usbUnavailable ?? "USB unavailable") }
        if let e = board.openError { throw .device(USBBridgeTransport.deviceError(e, board: board)) }
        do {
            let transport = try USBBridgeTransport(board: board, context: usb, logger: logger)
            // The transport's view of the board: with the serial, when discovery left it to this open.
            return OpenedDevice(
                address: board.port.address, summary: transport.summary, notice: nil, usbBoard: transport.board, transport: transport)
        } catch {
            throw .device(error)
        }
    }
}

/// Why no device could be chosen or opened.
public enum DeviceSelectionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Several boards and no address.
    case ambiguous([USBBridgeBoard])
    /// Several boards answer to the address (the same serial number).
    case ambiguousAddress(DeviceAddress, [USBBridgeBoard])
    /// Nothing matches the address; what is there instead.
    case noMatch(DeviceAddress, found: [USBBridgeBoard], usbUnavailable: String?)
    case unsupported(String)
    case device(DeviceError)

    public var description: String {
        switch self {
        case .ambiguous(let boards):
            "\(boards.count) bridge boards found; pick one with --device: " + boards.map(Self.addresses).joined(separator: ", ")
        case .ambiguousAddress(let address, let boards):
            "\(boards.count) bridge boards answer to \(address) (the same serial number); pick one by its port with --device: "
                + boards.map { "usb:\($0.portPath)" }.joined(separator: ", ")
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

    /// "usb:1-1 (usb:0001)": the board's port, and its serial as an address that
    /// selects it (`usb:serial=1-2` where the serial looks like a port), when it has one.
    static func addresses(_ board: USBBridgeBoard) -> String {
        "usb:\(board.portPath)" + (board.serialNumber.map { " (\(DeviceAddress.usb(.serial($0))))" } ?? "")
    }
}
