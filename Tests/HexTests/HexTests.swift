import Hex
import Testing

@Suite("Hex text")
struct HexTests {
    @Test("digits are padded with zeros to the width and never cut; the case is the caller's")
    func digits() {
        #expect(Hex.digits(UInt8(0x3C), width: 2) == "3C")
        #expect(Hex.digits(UInt8(0x05), width: 2) == "05")
        #expect(Hex.digits(UInt8(0x00), width: 2) == "00")
        #expect(Hex.digits(UInt16(0x36), width: 4, case: .lower) == "0036")
        #expect(Hex.digits(UInt16(0xBEEF), width: 4, case: .lower) == "beef")
        #expect(Hex.digits(0x12345, width: 4) == "12345", "a wider value keeps every digit")
        #expect(Hex.digits(UInt8(0x7F), case: .lower) == "7f", "width 1: as few digits as the value needs")
        #expect(Hex.digits(0) == "0")
        #expect(Hex.digits(UInt64.max, case: .lower) == "ffffffffffffffff")
        #expect(Hex.digits(UInt32(0x1F), width: 4) == "001F")
    }

    @Test("a literal is 0x and the digits: register values, I2C addresses, flash addresses")
    func literal() {
        #expect(Hex.literal(UInt8(0x5A), width: 2) == "0x5A")
        #expect(Hex.literal(UInt8(0x0C), width: 2) == "0x0C")
        #expect(Hex.literal(0x7000, width: 4) == "0x7000")
        #expect(Hex.literal(0x7F, width: 4) == "0x007F")
        #expect(Hex.literal(0x810000, width: 6) == "0x810000")
        #expect(Hex.literal(UInt16(0x0100), width: 4, case: .lower) == "0x0100")
        #expect(Hex.literal(UInt8(0xAB)) == "0xAB")
    }

    @Test("a negative value is its magnitude's digits after a minus sign, at every integer's extreme")
    func negative() {
        #expect(Hex.digits(-0x1F, width: 4) == "-001F")
        #expect(Hex.literal(-1, width: 2) == "-0x01")
        #expect(Hex.digits(Int8.min, width: 2) == "-80")
        #expect(Hex.digits(Int64.min, case: .lower) == "-8000000000000000")
    }

    @Test("bytes are two digits each, with the separator between them and never after")
    func bytes() {
        #expect(Hex.bytes([0x1E, 0x95, 0x87], separator: " ") == "1E 95 87")
        #expect(Hex.bytes([0xA0, 0xFF, 0x00], case: .lower) == "a0ff00")
        #expect(Hex.bytes([0x0F], separator: " ") == "0F")
        #expect(Hex.bytes([], separator: " ") == "")
        #expect(Hex.bytes([0x01, 0x02], separator: ", ") == "01, 02")
        #expect(Hex.bytes((0...255).map { UInt8($0) }, case: .lower).count == 512)
    }

    @Test("decode reads what bytes writes, in either case, and refuses odd lengths, separators, signs and non-digits")
    func decode() {
        let all = (0...255).map { UInt8($0) }
        #expect(Hex.decode(Hex.bytes(all)) == all)
        #expect(Hex.decode(Hex.bytes(all, case: .lower)) == all)
        #expect(Hex.decode("a0FF") == [0xA0, 0xFF])
        #expect(Hex.decode("") == [])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("a0 ff") == nil)
        #expect(Hex.decode("+1") == nil)
        #expect(Hex.decode("0x") == nil)
        #expect(Hex.decode("zz") == nil)
        #expect(Hex.decode("é0") == nil, "a non-ASCII character is never a digit")
        #expect(Hex.decode(ascii: Array("1E9587".utf8)[...]) == [0x1E, 0x95, 0x87])
        #expect(Hex.decode("line: 10 ff".split(separator: " ")[2]) == [0xFF], "a Substring decodes as its String would")
    }

    @Test("value reads a number in hex digits only: no sign, prefix or space, and nil past the type's range")
    func value() {
        #expect(Hex.value("5a", as: UInt8.self) == 0x5A)
        #expect(Hex.value("5A", as: UInt8.self) == 0x5A)
        #expect(Hex.value("ff", as: UInt8.self) == 0xFF)
        #expect(Hex.value("100", as: UInt8.self) == nil)
        #expect(Hex.value("0100", as: UInt8.self) == nil, "leading zeros count toward no range, but 0x100 does not fit")
        #expect(Hex.value("00ff", as: UInt8.self) == 0xFF)
        #expect(Hex.value("2341", as: UInt16.self) == 0x2341)
        #expect(Hex.value("7f", as: Int8.self) == 0x7F)
        #expect(Hex.value("80", as: Int8.self) == nil)
        #expect(Hex.value("ffffffffffffffff", as: UInt64.self) == .max)
        #expect(Hex.value("10000000000000000", as: UInt64.self) == nil)
        #expect(Hex.value("", as: Int.self) == nil)
        #expect(Hex.value("+1f", as: Int.self) == nil, "Int(_:radix:) takes a sign; text from a device or a file must not")
        #expect(Hex.value("-1", as: Int.self) == nil)
        #expect(Hex.value("0x1f", as: Int.self) == nil)
        #expect(Hex.value(" 1f", as: Int.self) == nil)
        #expect(Hex.value("1f\n", as: Int.self) == nil)
        #expect(Hex.value(String(repeating: "0", count: 10_000) + "1", as: UInt8.self) == 1, "a long run of zeros is read, not refused")
    }

    @Test("nibble is one digit's value in either case, nil for anything else")
    func nibble() {
        let digits = Array("0123456789abcdefABCDEF".utf8)
        #expect(digits.map { Hex.nibble($0) } == (0..<16).map { UInt8($0) } + (10..<16).map { UInt8($0) })
        #expect((0...255).filter { Hex.nibble(UInt8($0)) != nil }.count == 22)
    }
}
