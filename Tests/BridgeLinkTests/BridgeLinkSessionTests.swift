import BridgeLink
import Actuators
import BridgeProtocol
import DRV2605
import DeviceInterface
import Devices
import SimulatedBridgeDevice
import Testing

/// A bench session over the simulated board: the firmware core answers the frames,
/// the chip model behind it is the one the driver programs.
@Suite("Bench session over a board")
struct BridgeSessionTests {
    func openSimulated(fault: SimulatedBoardSetup.Fault = .none) throws -> OpenedDevice {
        let profile = try ActuatorProfileLoader.resolve("pmd-c10-100", directories: [actuatorDirectory])
        return try DeviceCatalog().open(.simulated, simulated: .init(actuator: profile, fault: fault))
    }

    @Test("HELLO reads the board's identity: protocol 1.1, firmware, chip, queue, serial and bootloader")
    func helloReadsTheIdentity() async throws {
        let opened = try openSimulated()
        let session = opened.link()
        let id = try await session.open()
        #expect(id.protocolVersion == "1.1" && id.canAccessRegisters)
        #expect(id.chip == .drv2605L && id.queueCapacity == 96)
        #expect(id.serialNumber == SimulatedBoardSetup.serialNumber.text && id.bootloader == .noneFound)
    }

    @Test("the DRV2605 driver calibrates the actuator through the bridge's register frames, as it does on the chip model")
    func calibrationRunsThroughTheBridge() async throws {
        let profile = try ActuatorProfileLoader.resolve("pmd-c10-100", directories: [actuatorDirectory])
        let opened = try openSimulated()
        let session = opened.link()
        try await session.open()
        var driver = DRV2605Driver(bus: session.i2cBus)
        _ = try await driver.bringUp(profile: profile)
        let result = try await driver.autoCalibrate()
        #expect(result.passed)
        // The C10-100 resonates at 175 Hz; the chip measures it while calibrating.
        let f = try #require(result.resonanceHz)
        #expect(abs(f - 175) < 10)
        try await session.stopAll()
    }

    @Test("a board at protocol 1.0 is told why registers cannot be read: run hapbridge flash, and nothing is sent that would hang")
    func protocol10CannotReadRegisters() async throws {
        let opened = try openSimulated()
        let session = opened.link()
        // Talking as a 1.0 host makes the board answer at 1.0, as 1.0 firmware does.
        let id = try await session.open(.init(protocolMinor: 0))
        #expect(id.protocolVersion == "1.0" && !id.canAccessRegisters && id.serialNumber == nil)
        do {
            _ = try await session.read(address: 0x5A, register: 0, count: 1)
            Issue.record("a 1.0 board must not be asked for registers")
        } catch {
            #expect(error.description.contains("cannot read registers: run `hapbridge flash`"))
        }
    }

    @Test("a silent link is a clear error after the reply timeout, not a hang")
    func silenceIsAnError() async throws {
        let opened = try openSimulated(fault: .none)
        let session = BridgeLink(transport: SilentLink(inner: opened.transport))
        session.replyTimeoutMicroseconds = 50_000
        await #expect(throws: BridgeLinkError.self) { try await session.open() }
    }
}

/// A link whose board never answers (its frames are lost): the real simulated board's
/// clock, nothing delivered.
final class SilentLink: FrameTransport {
    let inner: any FrameTransport
    init(inner: any FrameTransport) { self.inner = inner }
    var summary: String { "a silent link" }
    var hostMicroseconds: UInt64 { inner.hostMicroseconds }
    var isRealTime: Bool { inner.isRealTime }
    func send(_ bytes: [UInt8]) throws(DeviceError) {}
    func close() {}
    func poll() -> [DeviceEvent] { _ = inner.poll(); return [] }
    func wait(untilHostMicroseconds t: UInt64, isolation: isolated (any Actor)?) async throws(DeviceError) {
        try await inner.wait(untilHostMicroseconds: t, isolation: isolation)
    }
}

@Suite("The bootloader jump")
struct EnterBootloaderTests {
    @Test("enterBootloader sends ENTER_BOOTLOADER with its magic, the board acknowledges and jumps, and the link says where it went and which bootloader it named")
    func enterBootloaderSaysWhereTheBoardWent() async throws {
        let opened = try DeviceCatalog().open(.simulated, simulated: .init(actuator: try profile()))
        let link = opened.link()
        let identity = try await link.open()
        let handoff = try await link.enterBootloader()
        #expect(handoff.port == "sim" && handoff.bootloader == identity.bootloader)
        #expect(link.identity == nil, "the session ended with the jump")
        let entries = (opened.transport as? SimulatedBridgeDevice)?.board.bootloaderEntries
        #expect(entries == 1)
    }
}
