import FirmwareImage
import Flashing
import Synchronization
import Testing
import USBEmulation

/// The emulated Atmel DFU bootloader's DFU 1.0 state machine and FLIP commands,
/// request by request (no USB): what dfu-programmer and AtmelDFUProgrammer rely on
/// and what DFUEmulationTests cannot reach (the states between requests).
@Suite("Atmel DFU bootloader model")
struct DFUBootloaderTests {
    /// A configured bootloader (as after the kernel's enumeration) and what it answers.
    final class Bench: Sendable {
        let device: DFUBootloader
        /// Why it left the bus, each time it did.
        let left = Reasons()

        final class Reasons: Sendable {
            let list = Mutex<[String]>([])
        }

        init() throws {
            let left = self.left
            device = try DFUBootloader(flash: FlashMemory(part: .atmega32u4)) { why in left.list.withLock { $0.append(why) } }
            _ = request(USBSetupPacket(requestType: 0x00, request: 0x09, value: 1))  // SET_CONFIGURATION(1)
        }

        func request(_ setup: USBSetupPacket, _ data: [UInt8] = []) -> USBPipeResult {
            let answer = Mutex<USBPipeResult?>(nil)
            device.control(setup, data: data) { r in answer.withLock { $0 = r } }
            return answer.withLock { $0 } ?? .gone
        }

        func download(_ data: [UInt8]) -> USBPipeResult {
            request(USBSetupPacket(requestType: AtmelDFU.requestTypeOut, request: AtmelDFU.Request.download.rawValue, length: UInt16(data.count)), data)
        }

        func upload(_ length: Int) -> USBPipeResult {
            request(USBSetupPacket(requestType: AtmelDFU.requestTypeIn, request: AtmelDFU.Request.upload.rawValue, length: UInt16(length)))
        }

        /// GETSTATUS: bStatus and bState.
        func status() -> (AtmelDFU.Status?, AtmelDFU.State?) {
            guard case .done(let b) = request(USBSetupPacket(requestType: AtmelDFU.requestTypeIn, request: AtmelDFU.Request.getStatus.rawValue, length: 6)),
                b.count == 6
            else { return (nil, nil) }
            return (AtmelDFU.Status(rawValue: b[0]), AtmelDFU.State(rawValue: b[4]))
        }

        func simple(_ request: AtmelDFU.Request) -> USBPipeResult {
            self.request(USBSetupPacket(requestType: AtmelDFU.requestTypeOut, request: request.rawValue))
        }

        func erase() {
            _ = download(AtmelDFU.Command.eraseAll)
            _ = status()
        }
    }

    @Test("GETSTATUS answers 6 bytes: OK and dfuIDLE at first; a command moves it to dfuDNLOAD-IDLE")
    func statusLayout() throws {
        let b = try Bench()
        #expect(b.request(USBSetupPacket(requestType: 0xA1, request: 3, length: 6)) == .done([0, 0, 0, 0, 2, 0]))
        #expect(b.download(AtmelDFU.Command.selectPage(0)) == .done([]))
        #expect(b.status() == (.ok, .downloadIdle))
        #expect(b.request(USBSetupPacket(requestType: 0xA1, request: 5, length: 1)) == .done([AtmelDFU.State.downloadIdle.rawValue]))
    }

    @Test("an UPLOAD with nothing selected STALLs into dfuERROR (errSTALLEDPKT); ABORT STALLs there, CLRSTATUS returns to dfuIDLE")
    func errorState() throws {
        let b = try Bench()
        #expect(b.upload(16) == .stall)
        #expect(b.status() == (.errStalledPacket, .error))
        #expect(b.download(AtmelDFU.Command.eraseAll) == .stall)
        #expect(b.simple(.abort) == .stall)
        #expect(b.simple(.clearStatus) == .done([]))
        #expect(b.status() == (.ok, .idle))
    }

    @Test("a program command of part of a page leaves the rest of the page erased; read returns it across UPLOADs")
    func partialPageAndRead() throws {
        let b = try Bench()
        b.erase()
        #expect(b.download(AtmelDFU.Command.programFlash(start: 0x0104, data: [1, 2, 3])) == .done([]))
        #expect(b.status() == (.ok, .downloadIdle))
        #expect(b.download(AtmelDFU.Command.readFlash(start: 0x0100, end: 0x0109)) == .done([]))
        #expect(b.upload(6) == .done([0xFF, 0xFF, 0xFF, 0xFF, 1, 2]))
        #expect(b.upload(64) == .done([3, 0xFF, 0xFF, 0xFF]))
        #expect(b.device.counters.pagesWritten == 1)
    }

    @Test("blank check says errCHECK_ERASED over written flash and OK over erased flash")
    func blankCheck() throws {
        let b = try Bench()
        b.erase()
        _ = b.download(AtmelDFU.Command.programFlash(start: 0x2000, data: [0]))
        _ = b.status()
        _ = b.download(AtmelDFU.Command.blankCheck(start: 0, end: 0x6FFF))
        #expect(b.status() == (.errCheckErased, .error))
        _ = b.simple(.clearStatus)
        _ = b.download(AtmelDFU.Command.blankCheck(start: 0x2001, end: 0x6FFF))
        #expect(b.status() == (.ok, .downloadIdle))
    }

    @Test("read configuration returns the signature bytes 1E 95 87 one UPLOAD each; unknown selectors answer errTARGET")
    func signature() throws {
        let b = try Bench()
        var bytes: [UInt8] = []
        for selector in AtmelDFU.Configuration.signature {
            _ = b.download(AtmelDFU.Command.readConfiguration(selector))
            #expect(b.status() == (.ok, .downloadIdle))
            if case .done(let d) = b.upload(1) { bytes += d }
        }
        #expect(bytes == AVRPart.atmega32u4.signature)
        _ = b.download([0x05, 0x02, 0x00])
        #expect(b.status() == (.errTarget, .error))
    }

    @Test("a page select past the part's flash answers errADDRESS; a request to another interface STALLs")
    func addressing() throws {
        let b = try Bench()
        _ = b.download(AtmelDFU.Command.selectPage(1))
        #expect(b.status() == (.errAddress, .error))
        _ = b.simple(.clearStatus)
        #expect(b.request(USBSetupPacket(requestType: 0xA1, request: 3, index: 1, length: 6)) == .stall)
    }

    @Test("start the application: nothing happens until the zero-length DNLOAD, which leaves the bus; the device then answers nothing")
    func startApplication() throws {
        let b = try Bench()
        #expect(b.download(AtmelDFU.Command.startApplication) == .done([]))
        #expect(b.left.list.withLock { $0 }.isEmpty)
        #expect(b.download([]) == .done([]))
        #expect(b.left.list.withLock { $0 } == ["started the application"])
        #expect(b.status() == (nil, nil))
    }
}
