import Actuators
import BridgeProtocol
import DeviceInterface
import Devices
import Foundation
import Testing

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
        do { _ = try catalog.choose(.ftdi(serial: nil)) } catch { #expect(error.description.contains("not built yet")) }
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
