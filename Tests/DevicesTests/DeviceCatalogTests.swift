import Actuators
import BridgeProtocol
import DeviceInterface
import Devices
import Foundation
import HostedBoard
import Testing
@testable import USBBridge

let actuatorDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Hardware/actuators").path

@Suite("Device catalog")
struct DeviceCatalogTests {
    /// Only meaningful where no bridge board is plugged in (CI, this machine): the
    /// emulated-USB suites cover the rules with boards present.
    @Test("with no board on USB and no address, the simulated board is chosen, with a one-line notice")
    func noBoardMeansSimulatedWithANotice() throws {
        let catalog = DeviceCatalog()
        try #require(catalog.usbBoards().isEmpty)
        guard case .simulated(let notice) = try catalog.choose(nil) else {
            Issue.record("expected the simulated board")
            return
        }
        #expect(notice?.contains("no bridge board found") == true)
        #expect(try catalog.choose(.simulated) == .simulated(notice: nil))
    }

    @Test("an address that matches no board names it and says how to see what is there")
    func unmatchedAddressSaysWhy() throws {
        let catalog = DeviceCatalog()
        try #require(catalog.usbBoards().isEmpty)
        #expect(throws: DeviceSelectionError.self) { try catalog.choose(.usb(.serial("NOPE"))) }
        do { _ = try catalog.choose(.usb(.any)) } catch { #expect(error.description.contains("hapbridge list")) }
    }

    @Test("ftdi chooses the FT232H path (the firmware core hosted in process); with none plugged in, opening it says no FT232H was found")
    func ftdiWithoutAnFT232H() throws {
        let catalog = DeviceCatalog()
        #expect(try catalog.choose(.hosted(scheme: "ftdi", serial: nil)) == .hosted(scheme: "ftdi", serial: nil))
        #expect(try catalog.choose(.hosted(scheme: "ftdi", serial: "FT9")) == .hosted(scheme: "ftdi", serial: "FT9"))
        do {
            _ = try catalog.open(.hosted(scheme: "ftdi", serial: nil), simulated: .init(actuator: try ActuatorProfileLoader.resolve(SimulatedBoardSetup.defaultActuatorProfile, directories: [actuatorDirectory])))
            Issue.record("an FT232H opened on a machine without one")
        } catch {
            #expect("\(error)".contains("FT232H"), "\(error)")
        }
    }

    @Test("A hosted adapter asked for an I2C clock that is not a number or outside 10–400 kHz is refused naming it, before the adapter is touched", arguments: [Double.nan, .infinity, -1, 0, 9_999, 400_001, 1e30])
    func unusableI2CClockIsRefused(hz: Double) throws {
        let catalog = DeviceCatalog(adapterSettings: HostedAdapterSettings(i2cClockHz: hz, guardian: .none))
        do {
            _ = try catalog.open(.hosted(scheme: "ftdi", serial: nil), simulated: .init(actuator: try ActuatorProfileLoader.resolve(SimulatedBoardSetup.defaultActuatorProfile, directories: [actuatorDirectory])))
            Issue.record("opened with an I2C clock of \(hz) Hz")
        } catch {
            #expect("\(error)".contains("I2C clock of \(hz) Hz: give 10000 to 400000 Hz"), "\(error)")
        }
    }

    @Test("Every registered hosted adapter refuses an unusable I2C clock itself, opened directly as a library may")
    func adaptersRefuseAnUnusableClock() {
        for adapter in DeviceCatalog.hostedAdapters {
            for hz in [Double.nan, 0, 1e30] {
                do {
                    _ = try adapter.open(serial: nil, settings: HostedAdapterSettings(i2cClockHz: hz, guardian: .none))
                    Issue.record("\(adapter.name) opened with an I2C clock of \(hz) Hz")
                } catch {
                    #expect(error == .refused("\(adapter.scheme): an I2C clock of \(hz) Hz: give 10000 to 400000 Hz"), "\(error)")
                }
            }
        }
    }

    @Test(
        "DeviceAddress.hostedSchemes and DeviceCatalog.hostedAdapters agree both ways: every scheme an address can take has an adapter, every adapter's scheme parses to it, and no two adapters share one"
    )
    func hostedSchemesAreTheRegisteredAdapters() throws {
        let registered = DeviceCatalog.hostedAdapters.map(\.scheme)
        #expect(Set(registered) == Set(DeviceAddress.hostedSchemes), "\(registered) vs \(DeviceAddress.hostedSchemes)")
        #expect(Set(registered).count == registered.count, "two adapters answer to one scheme: \(registered)")
        for adapter in DeviceCatalog.hostedAdapters {
            let address = try DeviceAddress(parsing: adapter.scheme)
            #expect(address == .hosted(scheme: adapter.scheme, serial: nil))
            #expect(DeviceCatalog.hostedAdapter(address)?.name == adapter.name)
            #expect(try DeviceAddress(parsing: "\(adapter.scheme):A1") == .hosted(scheme: adapter.scheme, serial: "A1"))
            #expect(DeviceCatalog.hostedAdapter(vendorID: adapter.usbIdentity.vendorID, productID: adapter.usbIdentity.productID)?.scheme == adapter.scheme)
            // A USB identity discovery knows, so `list` shows it (and the udev rules grant it: UdevRulesTests).
            #expect(USBKnownIdentity.lookup(vendorID: adapter.usbIdentity.vendorID, productID: adapter.usbIdentity.productID) != nil, "\(adapter.name)")
            // Its guardian's name fits the kernel's comm and is spared by `pkill hapbridge`.
            #expect((1...15).contains(adapter.guardianProcessName.utf8.count) && !adapter.guardianProcessName.contains("hapbridge"))
            // Its wiring document exists (the Debian package ships Hardware/boards/*.md).
            #expect(adapter.wiringDocument.hasPrefix("Hardware/boards/") && adapter.wiringDocument.hasSuffix(".md"), "\(adapter.wiringDocument)")
            let repository = URL(fileURLWithPath: actuatorDirectory).deletingLastPathComponent().deletingLastPathComponent()
            #expect(FileManager.default.fileExists(atPath: repository.appendingPathComponent(adapter.wiringDocument).path), "\(adapter.wiringDocument)")
        }
        for scheme in ["sim", "simulated", "usb"] { #expect(!registered.contains(scheme)) }
    }

    @Test("the simulated board opens with the default actuator and answers HELLO with a DRV2605L")
    func simulatedBoardOpens() async throws {
        let profile = try ActuatorProfileLoader.resolve(SimulatedBoardSetup.defaultActuatorProfile, directories: [actuatorDirectory])
        let opened = try DeviceCatalog().open(.simulated, simulated: .init(actuator: profile))
        #expect(opened.summary.contains("simulated") && opened.summary.contains("LRA"))
        #expect(opened.transport.telemetry != nil, "the simulated sled provides acceleration")
        var encoder = HostFrameEncoder()
        try opened.transport.send(encoder.hello())
        try await opened.transport.wait(untilHostMicroseconds: opened.transport.hostMicroseconds + 5_000, isolation: nil)
        let frames = opened.transport.poll().compactMap { e -> BoardFrame? in
            if case .frame(let bytes, _) = e { return try? BoardFrame(decoding: bytes) }
            return nil
        }
        #expect(frames.first?.helloReply?.deviceID == 7)
    }
}

/// The choosing rule on the boards discovery found (the emulated-USB suites run the
/// same rule over libusb): an address says what it means, and an error's suggestions
/// select what they say.
@Suite("Device addresses that say what they mean")
struct DeviceChoiceTests {
    static func board(port: UInt8, serial: String?) -> USBBridgeBoard {
        USBBridgeBoard(busNumber: 1, portNumbers: [port], deviceAddress: port + 1, serialNumber: serial, bcdDevice: 0x0002, openError: nil)
    }

    @Test("with several boards and no address, the error suggests each board by port and by a serial address that selects it")
    func ambiguousSuggestsAddressesThatSelect() throws {
        // Board 1's serial looks like a port: `usb:1-2` would select board 2, so it is suggested as `usb:serial=1-2`.
        let boards = [Self.board(port: 1, serial: "1-2"), Self.board(port: 2, serial: "BENCH")]
        do {
            _ = try DeviceCatalog.choose(nil, among: boards)
            Issue.record("two boards and no address must be an error")
        } catch {
            #expect(error.description.contains("usb:1-1 (usb:serial=1-2), usb:1-2 (usb:BENCH)"), "\(error)")
            // Each suggestion parses back to the board it was written for.
            for (board, text) in zip(boards, ["usb:serial=1-2", "usb:BENCH"]) {
                #expect(try DeviceCatalog.choose(DeviceAddress(parsing: text), among: boards) == .usb(board))
                #expect(try DeviceCatalog.choose(DeviceAddress(parsing: "usb:\(board.portPath)"), among: boards) == .usb(board))
            }
        }
    }

    @Test("two boards reporting the same serial are ambiguous for usb:SERIAL: an error listing both by port, never the first")
    func duplicateSerialIsAmbiguous() throws {
        let boards = [Self.board(port: 1, serial: "UNSET"), Self.board(port: 2, serial: "UNSET"), Self.board(port: 3, serial: "B")]
        do {
            _ = try DeviceCatalog.choose(.usb(.serial("UNSET")), among: boards)
            Issue.record("a serial two boards report must not pick one")
        } catch {
            #expect(error == .ambiguousAddress(.usb(.serial("UNSET")), Array(boards.prefix(2))))
            #expect(error.description.contains("2 bridge boards answer to usb:UNSET") && error.description.contains("usb:1-1, usb:1-2"))
        }
        #expect(try DeviceCatalog.choose(.usb(.serial("B")), among: boards) == .usb(boards[2]))
    }

    @Test("an address echoed in an error is cut past 64 characters, with its length given")
    func longAddressIsCut() throws {
        let text = "usb:" + String(repeating: "x", count: 1000)
        do {
            _ = try DeviceAddress(parsing: text)
            Issue.record("a 1000-character serial must not parse")
        } catch {
            #expect(error.description.hasPrefix("bad device address \"usb:xxx"))
            #expect(error.description.contains("…\" (1004 characters)"), "\(error)")
            #expect(error.description.count < 200)
        }
    }
}
