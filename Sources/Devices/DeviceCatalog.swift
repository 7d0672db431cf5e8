import CHapbridgeProtocol
import DeviceInterface
import HostedBoard
import LibUSB
import Logging
import SimulatedBridgeDevice
import Synchronization
import USBBridge

/// Turns a device address into an opened device, and finds what is plugged in: the one
/// door every command, `run`, HapbridgeTesting and `HapticEngine.open(address:)` open a
/// device through. An address's scheme picks the way: `sim` the simulated board, `usb`
/// a bridge board on USB, and any other scheme the hosted adapter registered for it
/// (`hostedAdapters`), whose firmware core runs in this process. Every
/// way gives the same thing: a `FrameTransport` to a board running the firmware core,
/// which states its serial in HELLO_REPLY.
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

    /// How a hosted adapter opened here runs: its I2C clock, and the watchdog process it
    /// starts (by default the installed hapbridge's `guard`: `HostedAdapterSettings`; a
    /// library user who drives unguarded says `.none`).
    public let adapterSettings: HostedAdapterSettings

    public init(logger: Logger = Logger(label: "hapbridge.devices"), adapterSettings: HostedAdapterSettings = HostedAdapterSettings()) {
        self.logger = logger
        self.adapterSettings = adapterSettings
    }

    /// A catalog with these settings and a libusb context of its own, so its devices'
    /// transfers complete on an event thread of their own. Farm mode gives each device
    /// one: one event thread reaps every device of its context in turn, so a device
    /// whose reap is slow (an emulated board's each costs a round trip to the
    /// emulation) would delay the others' replies and keep-alives.
    public func withOwnUSBContext() -> DeviceCatalog {
        DeviceCatalog(logger: logger, adapterSettings: adapterSettings)
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
        /// A DRV2605 on the hosted adapter registered for `scheme` (the first one plugged
        /// in when `serial` is nil), played through the firmware core hosted in this process.
        case hosted(scheme: String, serial: String?)
    }

    public func choose(_ address: DeviceAddress?) throws(DeviceSelectionError) -> Choice {
        switch address {
        case nil, .usb?: return try Self.choose(address, among: usbBoards(), usbUnavailable: usbUnavailable)
        default: return try Self.choose(address, among: [], usbUnavailable: usbUnavailable)
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
        case .hosted(let scheme, let serial)?:
            return .hosted(scheme: scheme, serial: serial)
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
        case .hosted(let scheme, let serial):
            // Only an address names one: no address never chooses a hosted adapter.
            guard let address else { throw .unsupported("a hosted adapter is opened by its address (\(scheme), \(scheme):SERIAL)") }
            return try openHosted(scheme: scheme, serial: serial, address: address)
        }
    }

    /// The serial of the hosted adapter `address` names, without opening it: the one it
    /// gives, or the first plugged in's for a bare scheme (`ftdi`); nil when the address
    /// is no hosted adapter's, or none is plugged in.
    public func hostedSerial(_ address: DeviceAddress) -> String? {
        guard case .hosted(let scheme, let serial)? = try? Self.choose(address, among: []) else { return nil }
        return serial ?? Self.hostedAdapter(scheme: scheme)?.firstSerial()
    }

    /// The hosted adapter registered for `scheme` (`hostedAdapters`).
    public static func hostedAdapter(scheme: String) -> (any HostedAdapter)? {
        hostedAdapters.first { $0.scheme == scheme }
    }

    /// The hosted adapter `address` names (nil: none, or no adapter is registered for its scheme).
    public static func hostedAdapter(_ address: DeviceAddress) -> (any HostedAdapter)? {
        guard case .hosted(let scheme, _) = address else { return nil }
        return hostedAdapter(scheme: scheme)
    }

    /// The hosted adapter with this USB vendor and product ID (`HostedAdapter.usbIdentity`).
    public static func hostedAdapter(vendorID: UInt16, productID: UInt16) -> (any HostedAdapter)? {
        hostedAdapters.first { $0.usbIdentity == (vendorID, productID) }
    }

    /// Opens the hosted adapter registered for `scheme` with the firmware core hosted in
    /// this process (`HostedBoard`): the link a bridge board would give, timed by the
    /// host. The adapter's serial (the first one's, when none is named) is the board's
    /// serial in HELLO_REPLY, so calibrations are kept per adapter as per board. The
    /// notice says once when real-time scheduling was refused. `configuration` adjusts
    /// the hosted core (benchmarks compare its timer's scheduling).
    public func openHosted(_ address: DeviceAddress, configuration: ((inout HostedBoard.Configuration) -> Void)? = nil)
        throws(DeviceSelectionError) -> OpenedDevice
    {
        guard case .hosted(let scheme, let serial) = try Self.choose(address, among: []) else {
            throw .unsupported("\(address) is not the address of an adapter whose firmware core is hosted in this process")
        }
        return try openHosted(scheme: scheme, serial: serial, address: address, configuration: configuration)
    }

    private func openHosted(
        scheme: String, serial: String?, address: DeviceAddress, configuration: ((inout HostedBoard.Configuration) -> Void)? = nil
    ) throws(DeviceSelectionError) -> OpenedDevice {
        guard let adapter = Self.hostedAdapter(scheme: scheme) else {
            throw .unsupported("\(address): no adapter is registered for addresses of the scheme \(scheme)")
        }
        // Checked before the adapter is touched: a NaN or an out-of-range clock from a
        // library caller would otherwise reach integer conversions in the adapter.
        if let problem = adapterSettings.i2cClockProblem { throw .unsupported("\(address): \(problem)") }
        let connection: HostedAdapterConnection
        do { connection = try adapter.open(serial: serial, settings: adapterSettings) } catch {
            switch error {
            case .open(let e): throw .device(e)
            case .refused(let why): throw .unsupported(why)
            }
        }
        var config = HostedBoard.Configuration(serial: Self.boardSerial(connection.serial, adapter: adapter.name))
        configuration?(&config)
        let board = HostedBoard(port: connection.port, configuration: config, guardian: connection.guardian)
        let summary =
            "\(adapter.name)\(connection.serial.map { " \($0)" } ?? "") (firmware core hosted in process, \(connection.port.summary), "
            + "host-timed: \(board.scheduling.isRealTime ? "real-time" : "normal priority"))"
        let transport = HostedBoardTransport(
            board: board, summary: summary, adapterName: adapter.name, guardian: connection.guardian, reportsTiming: connection.reportsTiming)
        return OpenedDevice(
            address: address, summary: summary, notice: board.scheduling.notice(adapter: adapter.name, address: address.description),
            usbBoard: nil, transport: transport, hostTiming: board.scheduling)
    }

    /// The bytes of a serial the protocol can carry (1...20 of the characters
    /// `hb_serial_char_ok` takes); the adapter's name for one it cannot (none, too long).
    static func boardSerial(_ serial: String?, adapter: String) -> [UInt8] {
        let bytes = Array((serial ?? "").utf8)
        guard (1...Int(HB_SERIAL_MAX_LEN)).contains(bytes.count), bytes.allSatisfy(hb_serial_char_ok) else { return Array(adapter.utf8) }
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
