import AVRBootloaders
import FirmwareImage
import Hex

/// Caterina (and any AVR109 bootloader with auto-increment and block mode) over its
/// serial port, as `BootloaderProgrammer`: the identifier and block size are asked
/// once at open, pages go out as blocks of the size the bootloader reports, read-back
/// uses the same blocks (the letters: `AVR109`). Every answer is awaited with a bound:
/// `answerTimeout` for a command, `eraseTimeout` for the chip erase (Caterina erases and
/// writes each of the 224 application pages, up to 4.5 ms an operation: about 2 s).
public final class CaterinaProgrammer: BootloaderProgrammer {
    public let protocolName = "caterina"
    public let port: String
    /// What 'S' answered ("CATERIN").
    public let identifier: String
    /// What 'b' answered: the bytes one 'B' or 'g' moves.
    public let blockBytes: Int
    static let answerTimeout: Duration = .seconds(2)
    static let eraseTimeout: Duration = .seconds(10)
    private let serial: SerialPort
    private var inProgrammingMode = false
    /// The part its signature named (`readPart`), once read.
    private var part: AVRPart?

    public init(port: String) throws(FlashError) {
        self.port = port
        serial = try SerialPort(path: port)
        // ESC resynchronises a bootloader left mid-command; Caterina ignores it.
        try serial.write([AVR109.Command.resynchronise.byte], timeout: Self.answerTimeout)
        try serial.write([AVR109.Command.softwareIdentifier.byte], timeout: Self.answerTimeout)
        let id: [UInt8]
        do { id = try serial.read(count: AVR109.identifierLength, timeout: Self.answerTimeout, awaiting: "the bootloader's identifier (S)") } catch {
            throw FlashError(.noBootloader, "\(port): no AVR109 bootloader answered (\(error.message)); is the board in its bootloader? A Pro Micro has no reset button: short RST to GND twice")
        }
        identifier = String(decoding: id, as: UTF8.self)
        guard id.allSatisfy({ (0x20..<0x7F).contains($0) }) else {
            throw FlashError(.noBootloader, "\(port) answered S with bytes \(Hex.bytes(id, separator: " ")), not an AVR109 bootloader's identifier (is this the running application's port?)")
        }
        let serial = self.serial
        func command(_ command: AVR109.Command, answer count: Int, what: String) throws(FlashError) -> [UInt8] {
            try serial.write([command.byte], timeout: Self.answerTimeout)
            return try serial.read(count: count, timeout: Self.answerTimeout, awaiting: what)
        }
        let autoIncrement = try command(.autoIncrement, answer: 1, what: "auto-increment support (a)")
        guard autoIncrement == [AVR109.yes] else { throw FlashError(.protocolError, "\(port): the bootloader \(identifier) has no address auto-increment (a answered \(Self.show(autoIncrement)))") }
        let block = try command(.blockSupport, answer: 3, what: "the block size (b)")
        guard block[0] == AVR109.yes, case let size = Int(block[1]) << 8 | Int(block[2]), size > 0 else {
            throw FlashError(.protocolError, "\(port): the bootloader \(identifier) has no block mode (b answered \(Self.show(block)))")
        }
        blockBytes = size
    }

    public func readPart() throws(FlashError) -> AVRPart {
        // AVR109 sends the signature's last byte first.
        let reversed = try command(.readSignature, answer: 3, what: "the signature (s)")
        let signature = Array(reversed.reversed())
        guard let part = AVRPart.withSignature(signature) else {
            throw FlashError(.wrongPart, "\(port): the board's signature is \(Hex.bytes(signature, separator: " ")), not a part hapbridge flashes (\(AVRPart.all.map { "\($0.name) \(Hex.bytes($0.signature, separator: " "))" }.joined(separator: ", ")))")
        }
        self.part = part
        return part
    }

    public func eraseApplication(progress: FlashProgress) throws(FlashError) {
        try enterProgramming()
        // One command erases the whole application section: its bytes, all at once.
        let bytes = (part ?? .atmega32u4).applicationBytes
        progress.report(.erase, 0, bytes)
        try expectCR(try command(.chipErase, answer: 1, what: "the chip erase (e)", timeout: Self.eraseTimeout), after: "e")
        progress.report(.erase, bytes, bytes)
    }

    public func write(pages: [(address: Int, bytes: [UInt8])], progress: FlashProgress, stop: FlashStop) throws(FlashError) {
        try enterProgramming()
        let total = pages.reduce(0) { $0 + $1.bytes.count }
        var done = 0
        var next: Int?
        progress.report(.write, 0, total)
        for page in pages {
            var offset = 0
            while offset < page.bytes.count {
                let address = page.address + offset
                let chunk = Array(page.bytes[offset..<min(page.bytes.count, offset + blockBytes)])
                try stop.check("before the block at \(Hex.literal(address, width: 4))")
                if next != address { try setAddress(address) }
                try serial.write(
                    [AVR109.Command.blockWrite.byte, UInt8(chunk.count >> 8), UInt8(chunk.count & 0xFF), AVR109.Memory.flash.rawValue] + chunk,
                    timeout: Self.answerTimeout)
                try expectCR(try serial.read(count: 1, timeout: Self.answerTimeout, awaiting: "the block write at \(Hex.literal(address, width: 4)) (B)"), after: "B at \(Hex.literal(address, width: 4))")
                offset += chunk.count
                next = address + chunk.count
                done += chunk.count
                progress.report(.write, done, total)
            }
        }
    }

    public func read(address: Int, count: Int, progress: FlashProgress, stop: FlashStop) throws(FlashError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        try setAddress(address)
        progress.report(.read, 0, count)
        while out.count < count {
            try stop.check("before reading back \(Hex.literal(address + out.count, width: 4))")
            let size = min(blockBytes, count - out.count)
            try serial.write(
                [AVR109.Command.blockRead.byte, UInt8(size >> 8), UInt8(size & 0xFF), AVR109.Memory.flash.rawValue], timeout: Self.answerTimeout)
            out += try serial.read(count: size, timeout: Self.answerTimeout, awaiting: "the block read at \(Hex.literal(address + out.count, width: 4)) (g)")
            progress.report(.read, out.count, count)
        }
        return out
    }

    /// AVR109 'B' … 'E': Caterina.c writes each byte with eeprom_write_byte at its
    /// CurrAddress >> 1, so 'A' takes the EEPROM byte address itself (not halved, as
    /// avrdude's avr109 sends it for EEPROM). One block per `blockBytes`, each answered
    /// '\r' once its bytes are written (3.3 ms a byte on the ATmega32U4: a block of 128
    /// takes 0.42 s, inside the answer timeout).
    public func writeEEPROM(address: Int, bytes: [UInt8]) throws(FlashError) {
        try enterProgramming()
        try setEEPROMAddress(address)
        var offset = 0
        while offset < bytes.count {
            let chunk = Array(bytes[offset..<min(bytes.count, offset + blockBytes)])
            try serial.write(
                [AVR109.Command.blockWrite.byte, UInt8(chunk.count >> 8), UInt8(chunk.count & 0xFF), AVR109.Memory.eeprom.rawValue] + chunk,
                timeout: Self.answerTimeout)
            try expectCR(
                try serial.read(count: 1, timeout: Self.answerTimeout, awaiting: "the EEPROM block write at \(address + offset) (B … E)"),
                after: "B … E at EEPROM \(address + offset)")
            offset += chunk.count
        }
    }

    /// AVR109 'g' … 'E' from the EEPROM byte address.
    public func readEEPROM(address: Int, count: Int) throws(FlashError) -> [UInt8] {
        try setEEPROMAddress(address)
        var out: [UInt8] = []
        while out.count < count {
            let size = min(blockBytes, count - out.count)
            try serial.write(
                [AVR109.Command.blockRead.byte, UInt8(size >> 8), UInt8(size & 0xFF), AVR109.Memory.eeprom.rawValue], timeout: Self.answerTimeout)
            out += try serial.read(count: size, timeout: Self.answerTimeout, awaiting: "the EEPROM block read at \(address + out.count) (g … E)")
        }
        return out
    }

    public func startApplication() throws(FlashError) {
        if inProgrammingMode { try expectCR(try command(.leaveProgramming, answer: 1, what: "leaving programming mode (L)"), after: "L") }
        inProgrammingMode = false
        try expectCR(try command(.exitBootloader, answer: 1, what: "the exit (E)"), after: "E")
    }

    private func enterProgramming() throws(FlashError) {
        guard !inProgrammingMode else { return }
        try expectCR(try command(.enterProgramming, answer: 1, what: "entering programming mode (P)"), after: "P")
        inProgrammingMode = true
    }

    /// 'A' takes a word address: flash is addressed in 16-bit words.
    private func setAddress(_ address: Int) throws(FlashError) {
        let word = address / 2
        try serial.write([AVR109.Command.setAddress.byte, UInt8(word >> 8 & 0xFF), UInt8(word & 0xFF)], timeout: Self.answerTimeout)
        try expectCR(try serial.read(count: 1, timeout: Self.answerTimeout, awaiting: "the address \(Hex.literal(address, width: 4)) (A)"), after: "A \(Hex.literal(address, width: 4))")
    }

    /// 'A' for EEPROM: the byte address as it is (Caterina.c shifts it left and reads
    /// the EEPROM at CurrAddress >> 1).
    private func setEEPROMAddress(_ address: Int) throws(FlashError) {
        try serial.write([AVR109.Command.setAddress.byte, UInt8(address >> 8 & 0xFF), UInt8(address & 0xFF)], timeout: Self.answerTimeout)
        try expectCR(try serial.read(count: 1, timeout: Self.answerTimeout, awaiting: "the EEPROM address \(address) (A)"), after: "A \(address)")
    }

    private func command(_ command: AVR109.Command, answer count: Int, what: String, timeout: Duration = answerTimeout) throws(FlashError) -> [UInt8] {
        try serial.write([command.byte], timeout: Self.answerTimeout)
        return try serial.read(count: count, timeout: timeout, awaiting: what)
    }

    private func expectCR(_ answer: [UInt8], after command: String) throws(FlashError) {
        guard answer == [AVR109.acknowledge] else { throw FlashError(.protocolError, "\(port): the bootloader answered \(command) with \(Self.show(answer)), not a carriage return") }
    }

    static func show(_ bytes: [UInt8]) -> String {
        bytes.map { (0x21..<0x7F).contains($0) ? "'\(Character(Unicode.Scalar($0)))'" : Hex.literal($0, width: 2) }.joined(separator: " ")
    }
}
