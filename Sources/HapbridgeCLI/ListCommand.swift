import BridgeLink
import ArgumentParser
import BridgeProtocol
import DeviceInterface
import Devices
import Foundation
import Hex
import JSON
import USBBridge

/// `hapbridge list [--json]`: every device of a known USB identity, by port, with
/// what it says about itself (a bridge board answers HELLO).
public struct ListCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the bridge boards on USB (and their bootloaders, \(hostedAdapterNames)s): port, kind, serial, firmware and protocol, chip.",
        discussion: """
            Lists every USB device of a known identity by its port: bridge firmware (\(USBKnownIdentity.identities(of: .bridgeFirmware).map(\.usbID).joined(separator: ", "))), Caterina \
            bootloaders (\(USBKnownIdentity.identities(of: .caterinaBootloader).map(\.usbID).joined(separator: ", "))), the Atmel DFU bootloader \
            (\(USBKnownIdentity.identities(of: .atmelDFUBootloader).map(\.usbID).joined(separator: ", "))), \(hostedAdapterIdentities) \
            and boards running an Arduino sketch, which \
            `hapbridge flash` resets into their Caterina (\(USBKnownIdentity.identities(of: .arduinoSketch).map(\.usbID).joined(separator: ", "))). A board keeps its port (its address, usb:BUS-PORT) whatever it enumerates as. \
            Each bridge board is opened once and asked HELLO (this opens a session on it, which the board closes \
            by itself after its keep-alive: a board another program holds open shows as busy and is not \
            disturbed); the other kinds are listed with what their descriptors say. \
            The simulated board (--device sim) is always available and is not listed. \
            --json prints one object: {"schema": "hapbridge-list/1", "boards": [BOARD...]}, each BOARD with \
            "address" ("usb:1-2"), "kind" (\(USBDeviceKind.allCases.map { "\"\($0)\"" }.joined(separator: ", "))), \
            "usbID" ("1209:0001"), "bus", "ports", "deviceNumber", "serial" (string or null), \
            "bcdDevice", "status" ("ok", "busy", "access-denied", "no-answer", "not-hapbridge", "error"), \
            "message" (null when ok; for a board whose firmware is older than this hapbridge's, the notice that \
            `hapbridge flash` updates it), "firmwareUpdate" (the version `flash` would write when the board's is older, \
            else null), and from HELLO (null when it did not answer or is not bridge firmware): \
            "firmware", "protocol", "chipID", "chip", "bootloader", "queueCapacity". \
            Exits 0 whatever was found, 1 if USB itself could not be used.
            """)

    /// "FT232H": the hosted adapters `list` shows (`DeviceCatalog.hostedAdapters`).
    static var hostedAdapterNames: String { DeviceCatalog.hostedAdapters.map(\.name).joined(separator: "s, ") }

    /// "the FT232H (0403:6014)", each hosted adapter by its USB identity.
    static var hostedAdapterIdentities: String {
        DeviceCatalog.hostedAdapters.map {
            "the \($0.name) (\(USBKnownIdentity.usbID(vendorID: $0.usbIdentity.vendorID, productID: $0.usbIdentity.productID)))"
        }.joined(separator: ", ")
    }

    @Flag(help: "Print JSON (schema above) instead of a table.")
    public var json = false

    @OptionGroup public var logging: LoggingOptions

    public init() {}

    public func run() async throws {
        let catalog = DeviceCatalog(logger: logging.logger("hapbridge.devices"))
        // One enumeration; a bridge board's serial is read on the open that asks HELLO: one open per board.
        let devices = catalog.usbDevices(deferringSerialsOf: [.bridgeFirmware])
        if devices.isEmpty, let why = catalog.usbUnavailable { throw CLIError(why) }
        var entries: [BoardEntry] = []
        for device in devices { entries.append(await BoardEntry.probe(device, catalog: catalog)) }
        if json {
            // A document, not a line: written whole (JSONWriter escapes it), never capped.
            try Console.write(JSONWriter.string(.fields(["schema": .string("hapbridge-list/1"), "boards": .array(entries.map(\.json))]), pretty: false) + "\n", to: .output)
            return
        }
        guard !entries.isEmpty else {
            try Console.out("no bridge board found on USB (the simulated board is always there: --device sim)")
            return
        }
        let header = ["ADDRESS", "KIND", "SERIAL", "FIRMWARE", "PROTOCOL", "CHIP", "BOOTLOADER", "STATUS"]
        let rows = entries.map { e in
            [e.address, e.device.kind.description, e.serial ?? "-", e.identity?.firmwareVersion ?? "-", e.identity?.protocolVersion ?? "-",
             e.chipName ?? "-", e.identity?.bootloader.map(String.init(describing:)) ?? "-", e.status + (e.message.map { ": \($0)" } ?? "")]
        }
        try Console.lines(Table.lines([header] + rows), to: .output)
    }
}

/// One device as `list` reports it.
struct BoardEntry {
    var device: USBDiscoveredDevice
    var identity: BoardIdentity?
    var status: String
    var message: String?

    var address: String { "usb:\(device.port.path)" }
    var serial: String? { identity?.serialNumber ?? device.serialNumber }
    var chipName: String? {
        guard let identity else { return nil }
        guard let id = identity.chipDeviceID else { return "none (no ACK at 0x5A)" }
        return identity.chip.map(String.init(describing:)) ?? "DEVICE_ID \(id)"
    }

    /// A bridge board: opens it (reading its serial on that open), asks HELLO and
    /// closes it again. Any other kind: what discovery read, nothing sent.
    static func probe(_ device: USBDiscoveredDevice, catalog: DeviceCatalog) async -> BoardEntry {
        var entry = BoardEntry(device: device, identity: nil, status: "ok", message: nil)
        guard let board = device.bridgeBoard else {
            if let e = device.openFailure {
                entry.status = status(of: .device(e))
                entry.message = TerminalText.safe("its serial could not be read: \(e)")
            } else if let adapter = DeviceCatalog.hostedAdapter(vendorID: device.identity.vendorID, productID: device.identity.productID) {
                // Not a bridge board: a hosted adapter, reached by its serial, not by its port.
                entry.message = TerminalText.safe("a DRV2605 on its I2C: --device \(adapter.scheme):\(device.serialNumber ?? "SERIAL") (timed by this host)")
            }
            return entry
        }
        let opened: OpenedDevice
        do { opened = try catalog.open(board) } catch {
            entry.status = Self.status(of: error)
            entry.message = TerminalText.safe(error.description)
            return entry
        }
        // Read on this open (discovery left it), for protocol 1.0 boards that do not say it in HELLO.
        entry.device.serialNumber = opened.usbBoard?.serialNumber
        let session = opened.link()
        do {
            let identity = try await session.open()
            entry.identity = identity
            entry.message = identity.firmwareUpdateNotice(address: entry.address)
        } catch {
            switch error {
            case .noAnswer: entry.status = "no-answer"
            case .notHapbridge, .protocolVersion: entry.status = "not-hapbridge"
            default: entry.status = "error"
            }
            entry.message = TerminalText.safe(error.description)
        }
        opened.transport.close()
        return entry
    }

    static func status(of error: DeviceSelectionError) -> String {
        guard case .device(let e) = error else { return "error" }
        switch e {
        case .accessDenied: return "access-denied"
        case .busy: return "busy"
        default: return "error"
        }
    }

    var json: JSONValue {
        let id = identity
        return .fields([
            "address": .string(address), "kind": .string(device.kind.rawValue), "usbID": .string(device.identity.usbID),
            "bus": .number(Double(device.port.bus)), "ports": .array(device.port.ports.map { .number(Double($0)) }),
            "deviceNumber": .number(Double(device.deviceAddress)),
            "serial": serial.map { .string($0) } ?? .null, "bcdDevice": .string(Hex.literal(device.bcdDevice, width: 4, case: .lower)),
            "status": .string(status), "message": message.map { .string($0) } ?? .null,
            "firmwareUpdate": id?.firmwareIsOlder == true ? .string(BoardIdentity.currentFirmwareVersion) : .null,
            "firmware": id.map { .string($0.firmwareVersion) } ?? .null, "protocol": id.map { .string($0.protocolVersion) } ?? .null,
            "chipID": id?.chipDeviceID.map { .number(Double($0)) } ?? .null, "chip": id?.chip.map { .string("\($0)") } ?? .null,
            "bootloader": id?.bootloader.map { .string(Self.bootloaderName($0)) } ?? .null,
            "queueCapacity": id.map { .number(Double($0.queueCapacity)) } ?? .null,
        ])
    }

    /// The bootloader as a JSON value: stable lower-case words.
    static func bootloaderName(_ kind: BootloaderKind) -> String {
        switch kind {
        case .noneFound: "none"
        case .caterina: "caterina"
        case .atmelDFU: "atmel-dfu"
        default: "unrecognised"
        }
    }
}

/// Columns padded to their widest cell, two spaces apart.
enum Table {
    static func lines(_ rows: [[String]]) -> [String] {
        let widths = (0..<(rows.map(\.count).max() ?? 0)).map { c in rows.map { c < $0.count ? $0[c].count : 0 }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { i, cell in i == row.count - 1 ? cell : cell.padding(toLength: widths[i], withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
        }
    }
}

extension JSONValue {
    /// An object from key-value pairs in the order written.
    static func fields(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(pairs.map { (key: $0.key, value: $0.value) })
    }
}
