import DeviceInterface
import FTDIBridge
import MPSSE
import Testing

/// The MPSSE I2C command stream as FTDI's AN_255 builds it, and the meaning of its answer.
@Suite("MPSSE I2C programs")
struct MPSSEI2CProgramTests {
    /// 0x80 value direction: SCL AD0, SDA AD1, EN AD4.
    static func pins(scl: Bool, sda: Bool, sdaDriven: Bool = true) -> [UInt8] {
        [0x80, (scl ? 0x01 : 0) | (sda ? 0x02 : 0) | 0x10, 0x01 | (sdaDriven ? 0x02 : 0) | 0x10]
    }

    @Test("a one-byte write: START by GPIO (SDA falls while SCL is high), each byte clocked out (0x11) and its ACK bit clocked in (0x22) with SDA an input, STOP by GPIO")
    func writeStream() {
        var p = MPSSEI2CProgram(enable: true, sclHz: 400_000)
        p.write(address: 0x5A, register: 0x01, bytes: [0x00])
        let c = p.commands
        let high = Self.pins(scl: true, sda: true)
        let start = Array(repeating: high, count: 4).flatMap { $0 } + Array(repeating: Self.pins(scl: true, sda: false), count: 4).flatMap { $0 }
            + Self.pins(scl: false, sda: false)
        #expect(Array(c.prefix(start.count)) == start)
        let firstByte = [0x11, 0x00, 0x00, 0xB4] + Self.pins(scl: false, sda: true, sdaDriven: false) + [0x22, 0x00] + Self.pins(scl: false, sda: true)
        #expect(Array(c[start.count..<(start.count + firstByte.count)]) == firstByte, "address 0x5A + W = 0xB4")
        let stop = Array(repeating: Self.pins(scl: false, sda: false), count: 4).flatMap { $0 }
            + Array(repeating: Self.pins(scl: true, sda: false), count: 4).flatMap { $0 } + Array(repeating: high, count: 4).flatMap { $0 }
        #expect(Array(c.suffix(stop.count)) == stop)
        #expect(p.answers == [.acknowledge(address: 0x5A, register: nil), .acknowledge(address: 0x5A, register: 0x01), .acknowledge(address: 0x5A, register: 0x01)])
    }

    @Test("a read: the last byte is NACKed by the master (0x13 with 0xFF), the others ACKed (0x00)")
    func readAcknowledges() {
        var p = MPSSEI2CProgram()
        p.read(address: 0x5A, register: 0x00, count: 2)
        let c = p.commands
        let acks = c.indices.dropLast(2).filter { c[$0] == 0x13 && c[$0 + 1] == 0x00 }.map { c[$0 + 2] }
        #expect(acks == [0x00, 0xFF])
        #expect(p.answerCount == 3 + 2, "three ACK bits (address+W, register, address+R) and two data bytes")
    }

    @Test("the answer's ACK bits are checked: a 1 after the address is addressNotAcknowledged, after a data byte dataNotAcknowledged naming its register")
    func nackIsTypedError() {
        var p = MPSSEI2CProgram()
        p.write(address: 0x5A, register: 0x16, bytes: [0x3E, 0x8C])
        #expect(throws: I2CError.addressNotAcknowledged(address: 0x5A, advice: MPSSEI2CProgram.noAcknowledgeAdvice)) { try p.interpret([0x01, 0x00, 0x00, 0x00]) }
        #expect(throws: I2CError.dataNotAcknowledged(address: 0x5A, register: 0x17)) { try p.interpret([0x00, 0x00, 0x00, 0x01]) }
        #expect(throws: Never.self) { try p.interpret([0x00, 0x00, 0x00, 0x00]) }
    }

    @Test("several writes in one program are one stream with every ACK bit checked")
    func batch() {
        var p = MPSSEI2CProgram()
        p.write(address: 0x5A, register: 0x16, bytes: [0x3E])
        p.write(address: 0x5A, register: 0x02, bytes: [0x40])
        #expect(p.answerCount == 6)
        #expect(throws: I2CError.dataNotAcknowledged(address: 0x5A, register: 0x02)) { try p.interpret([0, 0, 0, 0, 0, 1]) }
    }

    @Test("idle clocks: SCL let go (an input), three-phase off, 0x8F for whole bytes and 0x8E for the rest, then the bus idle again")
    func idleClocks() {
        var p = MPSSEI2CProgram()
        p.idleClocks(8 * 3 + 5)
        let expected: [UInt8] = [0x80, 0x13, 0x12, 0x8D, 0x8F, 0x02, 0x00, 0x8E, 0x04, 0x8C] + Self.pins(scl: true, sda: true)
        #expect(p.commands == expected)
    }
}
