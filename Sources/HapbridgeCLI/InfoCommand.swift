import BridgeLink
import ArgumentParser
import BridgeProtocol
import DRV2605
import DeviceInterface
import Devices
import Foundation
import Hex
import HostedBoard
import JSON

/// `hapbridge info [--device ADDR] [--json]`: one board in detail.
public struct InfoCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show one board in detail: its identity, what it can do, the DRV2605's registers, stored calibrations.",
        discussion: """
            Opens a session (HELLO) and, on a board with protocol 1.1, reads the DRV2605's registers through it; it \
            writes nothing to the chip. --json prints one object: {"schema": "hapbridge-info/1", "address", "summary", \
            "usb" (null for the simulated board: "port", "serial", "bcdDevice"), "firmware", "protocol", \
            "firmwareUpdate" (the version `hapbridge flash` would write when the board's firmware is older, else null), \
            "capabilities" (names), "queueCapacity", "keepAliveMs", "maxDriveMs", "chipID", "chip", "bootloader", \
            "serial", "registers" (null at protocol 1.0: name → value), "supplyVolts", "calibrations" (actuator ids), "accelerometer" (a board with \
            a LIS3DH, capability 11: "part", "address", "rateHz", "fullScaleG"; else null), "hostTiming" (a hosted adapter, whose writes the host times: "realTime", \
            "scheduling", "precision"; else null)}.
            """)

    @OptionGroup public var device: DeviceOptions

    @Flag(help: "Print JSON (schema above) instead of text.")
    public var json = false

    public init() {}

    public func validate() throws {
        if device.plot != nil { throw ValidationError("info draws nothing: --plot belongs to play, calibrate, diagnose and rom") }
    }

    /// Registers shown, in address order.
    static let registers: [RegisterAddress] = [
        .status, .mode, .rtpInput, .librarySelection, .go, .ratedVoltage, .overdriveClamp,
        .autoCalibrationCompensation, .autoCalibrationBackEMF, .feedbackControl, .control1, .control2, .control3, .control4,
        .supplyVoltage, .lraPeriod,
    ]

    public func run() async throws {
        let opened = try device.open(actuator: try loadActuatorProfile(SimulatedBoardSetup.defaultActuatorProfile))
        let session = opened.link()
        let identity: BoardIdentity
        do { identity = try await session.open() } catch {
            opened.transport.close()
            throw CLIError(TerminalText.safe(error.description))
        }
        var values: [(RegisterAddress, UInt8)] = []
        var registerNote: String?
        if identity.canAccessRegisters, identity.chipDeviceID != nil {
            do {
                for r in Self.registers {
                    let v = try await session.read(address: DRV2605I2C.address, register: r.rawValue, count: 1)
                    if let b = v.first { values.append((r, b)) }
                }
            } catch { registerNote = TerminalText.safe(error.description) }
        } else if !identity.canAccessRegisters {
            registerNote = BridgeLinkError.firmwareTooOld(identity.firmwareVersion, protocolVersion: identity.protocolVersion).description
        } else {
            registerNote = "no DRV2605 answered at 0x5A"
        }
        let accelerometer = identity.capabilities.contains(.accelerometer) ? await Self.findAccelerometer(session) : nil
        opened.transport.close()
        let supply = values.first { $0.0 == .supplyVoltage }.map { DRV2605Formulas.supplyVolts(code: $0.1) }
        let calibrations = identity.serialNumber.flatMap { serial in try? CalibrationStore.user().actuators(calibratedFor: serial) } ?? []

        if json {
            let usb: JSONValue = opened.usbBoard.map { b in
                .fields([
                    "port": .string(b.portPath), "serial": b.serialNumber.map { .string($0) } ?? .null,
                    "bcdDevice": .string(Hex.literal(b.bcdDevice, width: 4, case: .lower)),
                ])
            } ?? .null
            let object = JSONValue.fields([
                "schema": .string("hapbridge-info/1"), "address": .string(opened.address.description), "summary": .string(opened.summary),
                "usb": usb, "firmware": .string(identity.firmwareVersion), "protocol": .string(identity.protocolVersion),
                "firmwareUpdate": identity.firmwareIsOlder ? .string(BoardIdentity.currentFirmwareVersion) : .null,
                "capabilities": .array(Self.capabilityNames(identity.capabilities).map { .string($0) }),
                "queueCapacity": .number(Double(identity.queueCapacity)),
                "keepAliveMs": .number(Double(identity.keepAliveMilliseconds)), "maxDriveMs": .number(Double(identity.maxDriveMilliseconds)),
                "chipID": identity.chipDeviceID.map { .number(Double($0)) } ?? .null, "chip": identity.chip.map { .string("\($0)") } ?? .null,
                "bootloader": identity.bootloader.map { .string(BoardEntry.bootloaderName($0)) } ?? .null,
                "serial": identity.serialNumber.map { .string($0) } ?? .null,
                "registers": values.isEmpty ? .null : .object(values.map { (key: $0.0.datasheetName, value: .number(Double($0.1))) }),
                "supplyVolts": supply.map { .number(($0 * 1000).rounded() / 1000) } ?? .null,
                "calibrations": .array(calibrations.map { .string($0) }),
                "accelerometer": accelerometer.map { a in
                    .fields([
                        "part": .string("LIS3DH"), "address": a.address.map { .number(Double($0)) } ?? .null,
                        "rateHz": a.settings.map { .number(Self.rateHz(code: $0.rateCode)) } ?? .null,
                        "fullScaleG": a.settings.map { .number(Double(2 << Int($0.fullScaleCode))) } ?? .null,
                    ])
                } ?? .null,
                "hostTiming": opened.hostTiming.map { t in
                    .fields(["realTime": .bool(t.isRealTime), "scheduling": .string(t.description), "precision": .string(t.precision)])
                } ?? .null,
            ])
            // A document, not a line: written whole (JSONWriter escapes it), never capped.
            try Console.write(JSONWriter.string(object, pretty: false) + "\n", to: .output)
            return
        }
        let port: String = opened.usbBoard.map { ", USB port \($0.portPath), bcdDevice \(Hex.literal($0.bcdDevice, width: 4, case: .lower))" } ?? ""
        let chip: String
        if let id = identity.chipDeviceID {
            chip = identity.chip.map { "\($0) (DEVICE_ID \(id))" } ?? "DEVICE_ID \(id) (\(id == 0 ? ChipProbe.everyBitLow + " " : "")\(ChipProbe.expected))"
        } else {
            // What to check, in the adapter's words where its wiring has mistakes of its own.
            chip = "none answered at 0x5A (\(opened.transport.i2cNoAcknowledgeAdvice ?? ChipProbe.noAcknowledgeAdvice))"
        }
        let bootloader: String = identity.bootloader.map { "\($0)" } ?? "not reported (protocol 1.0)"
        var lines: [String] = []
        lines.append("device: \(opened.summary)")
        lines.append("address: \(opened.address)" + port)
        lines.append("serial: \(identity.serialNumber ?? "none reported (protocol 1.0)")")
        lines.append("firmware \(identity.firmwareVersion), protocol \(identity.protocolVersion)")
        if let notice = identity.firmwareUpdateNotice(address: opened.address.description) { lines.append("note: " + notice) }
        lines.append("capabilities: " + Self.capabilityNames(identity.capabilities).joined(separator: ", "))
        lines.append(
            "queue: \(identity.queueCapacity) stamped commands; keep-alive \(identity.keepAliveMilliseconds) ms, "
                + "max continuous drive \(identity.maxDriveMilliseconds) ms")
        lines.append("chip: " + chip)
        lines.append("bootloader: " + bootloader)
        if !values.isEmpty {
            lines.append("registers:")
            lines += values.map { row($0.0, $0.1, $0.0 == .supplyVoltage ? "-> \(format(DRV2605Formulas.supplyVolts(code: $0.1), 2)) V" : "") }
        }
        if let registerNote { lines.append("registers: \(registerNote)") }
        if let a = accelerometer {
            let at = a.address.map { " at \(Hex.literal($0, width: 2))" } ?? ""
            let stream = a.settings.map {
                "streamed at \(JSONWriter.format(Self.rateHz(code: $0.rateCode))) Hz, ±\(2 << Int($0.fullScaleCode)) g, while the engine plays"
            } ?? "not streamed"
            lines.append("accelerometer: LIS3DH\(at) (capability 11), \(stream): acceleration figures come from it (sensor)")
        }
        lines.append("stored calibrations: " + (calibrations.isEmpty ? "none" : calibrations.joined(separator: ", ")))
        if let timing = opened.hostTiming {
            // No board clock: the firmware core runs in this process and the host times each write.
            lines.append("host timing: \(timing); \(timing.precision)")
            if !timing.isRealTime {
                let wiring = DeviceCatalog.hostedAdapter(opened.address).map { ShippedFiles.document($0.wiringDocument) + ", " } ?? ""
                lines.append("to allow real-time scheduling (\(wiring)\"Real-time permission\"):")
                lines += HostedScheduling.howToGrant.map { "  " + $0 }
            }
        }
        try Console.lines(lines, to: .output)
    }

    /// The board's accelerometer: where it answers (WHO_AM_I read at 0x18, then 0x19, as
    /// the firmware looks for it; nil if neither answers now) and how the link streams it.
    static func findAccelerometer(_ session: BridgeLink) async -> (address: UInt8?, settings: AccelerometerSettings?) {
        var found: UInt8?
        for address: UInt8 in [0x18, 0x19] where found == nil {
            if let id = try? await session.read(address: address, register: 0x0F, count: 1), id.first == 0x33 { found = address }
        }
        return (found, session.accelerometer)
    }

    /// CTRL_REG1.ODR code → Hz (LIS3DH datasheet Table 31, normal and high-resolution modes).
    static func rateHz(code: UInt8) -> Double {
        [1: 1, 2: 10, 3: 25, 4: 50, 5: 100, 6: 200, 7: 400, 9: 1344][code] ?? 0
    }

    static func capabilityNames(_ c: BoardCapabilities) -> [String] {
        let names: [(BoardCapabilities, String)] = [
            (.rtp, "rtp"), (.registerWrite, "register-write"), (.romSequence, "rom-sequence"), (.stampedStop, "stamped-stop"),
            (.clockSync, "clock-sync"), (.queueStatus, "queue-status"), (.chipStatus, "chip-status"), (.bootloader, "bootloader-entry"),
            (.rawI2C, "register-access"), (.replaceFrom, "replace-from"), (.identity, "identity"), (.accelerometer, "accelerometer"),
        ]
        return names.filter { c.contains($0.0) }.map(\.1)
    }
}
