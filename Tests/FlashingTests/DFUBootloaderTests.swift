import AVRBootloaders
import Dispatch
import FirmwareImage
import Synchronization
import Testing
import USBEmulation

/// The emulated Atmel DFU bootloader's DFU 1.0 state machine and FLIP commands,
/// request by request (no USB): what dfu-programmer, avrdude's flip1 and
/// AtmelDFUProgrammer rely on and what DFUEmulationTests cannot reach (the states
/// between requests). The commands are written out as the public clients send them
/// (dfu-programmer 0.6.1's atmel.c, avrdude's flip1.c), not built by hapbridge's programmer.
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

        /// The request's answer, once the device gives it (a command the flash is busy
        /// with completes when its page erases and writes would be done); `.gone` if it
        /// never does within a generous bound.
        func request(_ setup: USBSetupPacket, _ data: [UInt8] = []) -> USBPipeResult {
            let answer = Mutex<USBPipeResult?>(nil)
            let done = DispatchSemaphore(value: 0)
            device.control(setup, data: data) { r in
                answer.withLock { $0 = r }
                done.signal()
            }
            _ = done.wait(timeout: .now() + .seconds(30))
            return answer.withLock { $0 } ?? .gone
        }

        func download(_ data: [UInt8]) -> USBPipeResult {
            request(USBSetupPacket(requestType: 0x21, request: AtmelDFU.Request.download.rawValue, length: UInt16(data.count)), data)
        }

        func upload(_ length: Int) -> USBPipeResult {
            request(USBSetupPacket(requestType: 0xA1, request: AtmelDFU.Request.upload.rawValue, length: UInt16(length)))
        }

        /// GETSTATUS's six bytes.
        func rawStatus() -> [UInt8]? {
            guard case .done(let b) = request(USBSetupPacket(requestType: 0xA1, request: AtmelDFU.Request.getStatus.rawValue, length: 6)), b.count == 6
            else { return nil }
            return b
        }

        /// GETSTATUS: bStatus and bState.
        func status() -> (AtmelDFU.Status?, AtmelDFU.State?) {
            guard let b = rawStatus() else { return (nil, nil) }
            return (AtmelDFU.Status(rawValue: b[0]), AtmelDFU.State(rawValue: b[4]))
        }

        func simple(_ request: AtmelDFU.Request) -> USBPipeResult {
            self.request(USBSetupPacket(requestType: 0x21, request: request.rawValue))
        }

        /// `05 GG II` then one UPLOAD: the configuration byte, or nil when refused.
        func configuration(_ group: UInt8, _ index: UInt8) -> UInt8? {
            _ = download([0x05, group, index])
            guard status() == (.ok, .idle), case .done(let b) = upload(1), b.count == 1 else { return nil }
            return b[0]
        }

        func erase() {
            _ = download([0x04, 0x00, 0xFF])
            _ = status()
        }
    }

    /// dfu-programmer's program command: `01 00 start end`, zero-padded to 32 bytes, the
    /// data, then the 16-byte DFU suffix (start aligned here, so no filler).
    static func program(at start: UInt16, _ data: [UInt8], filler: Int = 0) -> [UInt8] {
        let end = start + UInt16(data.count) - 1
        var command: [UInt8] = [0x01, 0x00, UInt8(start >> 8), UInt8(start & 0xFF), UInt8(end >> 8), UInt8(end & 0xFF)]
        command += [UInt8](repeating: 0, count: 26 + filler)
        return command + data + [0, 0, 0, 0, 16, 0x44, 0x46, 0x55, 0x01, 0x10, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
    }

    @Test("GETSTATUS answers 6 bytes: OK, a 1 ms poll timeout and dfuIDLE, before a command and after one, as real parts answer dfu-programmer")
    func statusLayout() throws {
        let b = try Bench()
        #expect(b.rawStatus() == [0, 1, 0, 0, 2, 0])
        #expect(b.download([0x06, 0x03, 0x00, 0x00]) == .done([]))
        #expect(b.rawStatus() == [0, 1, 0, 0, 2, 0])
        #expect(b.request(USBSetupPacket(requestType: 0xA1, request: 5, length: 1)) == .done([AtmelDFU.State.idle.rawValue]))
    }

    @Test("an UPLOAD with nothing selected STALLs into dfuERROR (errSTALLEDPKT); ABORT STALLs there, CLRSTATUS returns to dfuIDLE")
    func errorState() throws {
        let b = try Bench()
        #expect(b.upload(16) == .stall)
        #expect(b.status() == (.errStalledPacket, .error))
        #expect(b.download([0x04, 0x00, 0xFF]) == .stall)
        #expect(b.simple(.abort) == .stall)
        #expect(b.simple(.clearStatus) == .done([]))
        #expect(b.status() == (.ok, .idle))
    }

    @Test("EEPROM as LUFA's DFU bootloader programs it: 01 01 start end with the 32-byte block and start % 32 filler writes the bytes at their EEPROM addresses, 03 02 reads them back; refused in the security mode and past the 1 KiB")
    func eepromProgramAndRead() throws {
        let b = try Bench()
        // Before the chip erase: the security mode refuses the write (the data stage STALLs).
        let record: [UInt8] = [0x48, 0x42, 0x53, 0x4E, 0x02, 0x41, 0x42]
        func program(_ start: Int, _ data: [UInt8]) -> [UInt8] {
            let end = start + data.count - 1
            var block: [UInt8] = [0x01, 0x01, UInt8(start >> 8), UInt8(start & 0xFF), UInt8(end >> 8), UInt8(end & 0xFF)]
            block += [UInt8](repeating: 0, count: 32 - block.count)
            return block + [UInt8](repeating: 0, count: start % 32) + data + [UInt8](repeating: 0, count: 16)
        }
        #expect(b.download(program(0, record)) == .stall)
        #expect(b.status() == (.errWrite, .error))
        _ = b.simple(.clearStatus)
        b.erase()
        #expect(b.download(program(3, record)) == .done([]))
        #expect(b.status() == (.ok, .downloadIdle))
        #expect(Array(b.device.eeprom[3..<10]) == record && b.device.eeprom[2] == 0xFF && b.device.eeprom[10] == 0xFF)
        #expect(b.download([0x03, 0x02, 0x00, 0x02, 0x00, 0x0A]) == .done([]))
        #expect(b.upload(9) == .done([0xFF] + record + [0xFF]))
        #expect(b.download([0x03, 0x02, 0x00, 0x00, 0x04, 0x00]) == .done([]))
        #expect(b.status() == (.errAddress, .error), "EEPROM address 1024 is past the part's 1 KiB")
    }

    @Test("read configuration answers as the chip: 01 30 the manufacturer code 0x58, 01 31 / 01 60 / 01 61 the signature 1E 95 87 (what avrdude's flip1 reads), 00 00-02 the bootloader's version and IDs; another index errADDRESS")
    func configurationAsTheChipAnswers() throws {
        let b = try Bench()
        #expect(b.configuration(0x01, 0x30) == 0x58)
        #expect([b.configuration(0x01, 0x31), b.configuration(0x01, 0x60), b.configuration(0x01, 0x61)] == [0x1E, 0x95, 0x87])
        #expect(b.configuration(0x00, 0x01) == 0xDC && b.configuration(0x00, 0x02) == 0xFB && b.configuration(0x00, 0x00) != nil)
        _ = b.download([0x05, 0x01, 0x32])
        #expect(b.status() == (.errAddress, .error))
        _ = b.simple(.clearStatus)
        _ = b.download([0x05, 0x02, 0x00])
        #expect(b.status() == (.errTarget, .error))
    }

    @Test("both select-page forms are taken: doc7618's 06 03 00 PP (dfu-programmer) and avrdude flip1's 06 00 PP answer OK; only the first selects, and a read in a page past the flash is errADDRESS")
    func selectPageForms() throws {
        let b = try Bench()
        b.erase()
        #expect(b.download([0x06, 0x00, 0x00]) == .done([]))
        #expect(b.status() == (.ok, .idle))
        #expect(b.download([0x06, 0x00, 0x01]) == .done([]))
        #expect(b.status() == (.ok, .idle), "avrdude's form changes nothing")
        _ = b.download([0x03, 0x00, 0x00, 0x00, 0x00, 0x0F])
        #expect(b.status() == (.ok, .uploadIdle), "still page 0")
        #expect(b.download([0x06, 0x03, 0x00, 0x01]) == .done([]))
        #expect(b.status() == (.ok, .idle))
        _ = b.download([0x03, 0x00, 0x00, 0x00, 0x00, 0x0F])
        #expect(b.status() == (.errAddress, .error), "page 1 is past the 32 KiB flash")
        _ = b.simple(.clearStatus)
        #expect(b.request(USBSetupPacket(requestType: 0xA1, request: 3, index: 1, length: 6)) == .stall, "a request to another interface")
    }

    @Test("a program command's data follows the 32-byte command block and start % 32 filler bytes (as LUFA discards them and avrdude places a short write); each page it touches is erased and written, the rest of the page reads 0xFF")
    func programAlignmentAndPages() throws {
        let b = try Bench()
        b.erase()
        _ = b.download(Self.program(at: 0x0180, [UInt8](repeating: 0x00, count: 128)))
        #expect(b.status() == (.ok, .downloadIdle))
        // 0x0104 is 4 bytes into a 32-byte packet: 4 filler bytes before the data.
        #expect(b.download(Self.program(at: 0x0104, [1, 2, 3], filler: 4)) == .done([]))
        #expect(b.status() == (.ok, .downloadIdle))
        _ = b.download([0x03, 0x00, 0x01, 0x00, 0x01, 0x09])
        #expect(b.upload(6) == .done([0xFF, 0xFF, 0xFF, 0xFF, 1, 2]))
        #expect(b.upload(64) == .done([3, 0xFF, 0xFF, 0xFF]))
        #expect(b.status() == (.ok, .idle), "the read is done")
        #expect(b.device.counters.pagesWritten == 2)
        // The page is erased before it is written: a second command over it leaves only its bytes.
        _ = b.download(Self.program(at: 0x0180, [0x55, 0x55]))
        _ = b.download([0x03, 0x00, 0x01, 0x80, 0x01, 0x83])
        #expect(b.upload(4) == .done([0x55, 0x55, 0xFF, 0xFF]))
    }

    @Test("blank check says errCHECK_ERASED over written flash and OK over erased flash")
    func blankCheck() throws {
        let b = try Bench()
        b.erase()
        _ = b.download(Self.program(at: 0x2000, [0, 0]))
        _ = b.status()
        _ = b.download([0x03, 0x01, 0x00, 0x00, 0x6F, 0xFF])
        #expect(b.status() == (.errCheckErased, .error))
        _ = b.simple(.clearStatus)
        _ = b.download([0x03, 0x01, 0x20, 0x02, 0x6F, 0xFF])
        #expect(b.status() == (.ok, .idle))
    }

    @Test("before a chip erase a program command STALLs with errWRITE (dfu-programmer: \"Device is write protected\") and a read answers errFILE; the signature and the erase are allowed")
    func securityMode() throws {
        let b = try Bench()
        #expect(b.download(Self.program(at: 0x0000, [0x0C, 0x94])) == .stall)
        #expect(b.status() == (.errWrite, .error))
        _ = b.simple(.clearStatus)
        _ = b.download([0x03, 0x00, 0x00, 0x00, 0x00, 0x0F])
        #expect(b.status() == (.errFile, .error))
        _ = b.simple(.clearStatus)
        #expect(b.configuration(0x01, 0x31) == 0x1E)
        b.erase()
        #expect(b.download(Self.program(at: 0x0000, [0x0C, 0x94])) == .done([]))
        #expect(b.status() == (.ok, .downloadIdle))
    }

    @Test("the flash is busy as the chip would be: a chip erase is one page erase per application page, a 1 KiB program command an erase and a write for each of its 8 pages")
    func selfProgrammingIsCounted() throws {
        let b = try Bench()
        let part = AVRPart.atmega32u4
        b.erase()
        #expect(b.device.flash.selfProgrammingOperations == part.applicationBytes / part.pageBytes)
        _ = b.download(Self.program(at: 0x0400, [UInt8](repeating: 0x5A, count: 1024)))
        #expect(b.status() == (.ok, .downloadIdle))
        #expect(b.device.flash.selfProgrammingOperations == part.applicationBytes / part.pageBytes + 16)
    }

    @Test("start the application: nothing happens until the zero-length DNLOAD, which leaves the bus; the device then answers nothing")
    func startApplication() throws {
        let b = try Bench()
        #expect(b.download([0x04, 0x03, 0x01, 0x00, 0x00]) == .done([]))
        #expect(b.left.list.withLock { $0 }.isEmpty)
        #expect(b.download([]) == .done([]))
        #expect(b.left.list.withLock { $0 } == ["started the application"])
        #expect(b.status() == (nil, nil))
    }
}
